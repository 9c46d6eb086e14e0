"""Who acts: principals (no row), people, and tokens with their raw value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import factory
from factory.django import DjangoModelFactory

from core.accounts.models import ApiToken, User
from core.accounts.principals import Principal
from core.accounts.roles import HUMAN_ROLES, Role
from core.accounts.services import person_add, token_issue

PASSWORD = "correct-horse-9"  # every person's a factory makes, unless told otherwise


class PrincipalFactory(factory.Factory[Principal]):
    """A principal as a service receives it, human by its role; no row behind it."""

    class Meta:
        model = Principal

    role = Role.AGENT
    name = factory.Sequence(lambda n: f"principal-{n}")
    is_human = factory.LazyAttribute(lambda principal: principal.role in HUMAN_ROLES)


class UserFactory(DjangoModelFactory[User]):
    """A person with a role who logs in with PASSWORD, added as the admins' pages add one
    (an admin is a superuser and staff)."""

    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"person-{n}")
    role = Role.ANNOTATOR.value
    password = PASSWORD

    @classmethod
    def _create(cls, model_class: type[User], *args: Any, **kwargs: Any) -> User:
        return person_add(**kwargs)


@dataclass(frozen=True)
class IssuedToken:
    """A token and its raw value, which the host shows once and never stores."""

    token: ApiToken
    raw: str


class ApiTokenFactory(factory.Factory[IssuedToken]):
    """A machine's token (an agent's unless told), or a person's own with `user`."""

    class Meta:
        model = IssuedToken

    name = factory.Sequence(lambda n: f"token-{n}")
    user: User | None = None
    role = factory.LazyAttribute(lambda o: "" if o.user else Role.AGENT.value)

    @classmethod
    def _create(cls, model_class: type[IssuedToken], *args: Any, **kwargs: Any) -> IssuedToken:
        return IssuedToken(*token_issue(**kwargs))
