"""Invitations: a manager brings a person who has no account yet into their project.

The invitation makes the account (no usable password, a member with the role asked) and a
one-time link to choose a password: Django's password-reset token, which dies when the password
is set, when a newer link is made (the unusable password is drawn again) and after
`PASSWORD_RESET_TIMEOUT`. Nothing of the link is stored.

A manager may draw a new link only for a person still waiting (never signed in, no password)
whose one membership is in this project: never for anyone another project or the site brought
in, so that no manager can take over an account through a link.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from core.accounts.models import User
from core.accounts.roles import Action, Role
from core.projects.services import member_set
from learnportal_protocol.errors import conflict, detail, invalid

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from core.projects.models import Project

TAKEN = "a person of that name has an account already: add them as a member"


@dataclass(frozen=True)
class Invitation:
    """Who was invited, with which role, and the parts of their link (`uid`, `token`)."""

    person: User
    role: Role
    uid: str
    token: str
    expires: float  # epoch seconds


def invitation_days() -> int:
    return int(settings.PASSWORD_RESET_TIMEOUT // 86400)


def waiting(person: User) -> bool:
    """Invited and not yet in: never signed in, no password of their own."""
    return person.last_login is None and not person.has_usable_password()


def invitation_make(*, actor: Principal, project: Project, username: str, role: str) -> Invitation:
    """Invite `username` into `project` with `role` (a project role), or draw a new link for
    one still waiting who only this project invited; refusals name the field."""
    actor.require(Action.MANAGE_PROJECT)
    person = User.objects.filter(username__iexact=username).first()
    with transaction.atomic():
        if person is None:
            person = _new_person(username)
        elif not _ours_to_invite(person, project):
            raise conflict(
                f"{person.get_username()!r} has an account already: add them as a member.",
                [detail(["username"], TAKEN)],
            )
        person.set_unusable_password()  # a new draw: any earlier link of theirs dies
        person.save(update_fields=["password"])
        chosen = member_set(project=project, person=person, role=role)
    return Invitation(
        person=person,
        role=chosen,
        uid=urlsafe_base64_encode(force_bytes(person.pk)),
        token=default_token_generator.make_token(person),
        expires=time.time() + settings.PASSWORD_RESET_TIMEOUT,
    )


def _new_person(username: str) -> User:
    person = User(username=username)
    try:
        person.full_clean(exclude=["password"])
    except ValidationError as exc:
        messages = exc.message_dict.get("username", exc.messages)
        raise invalid(" ".join(messages), [detail(["username"], m) for m in messages]) from None
    person.set_unusable_password()
    person.save()
    return person


def _ours_to_invite(person: User, project: Project) -> bool:
    if person.is_superuser or not person.is_active or not waiting(person):
        return False
    projects = set(person.memberships.values_list("project_id", flat=True))
    return projects <= {project.pk}
