"""What `/api/projects/` answers, each answer one pydantic model built by `.of()`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import Field

from core.accounts.roles import Role
from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.accounts.models import User
    from core.projects.models import Project


class ProjectAnswer(Answer):
    slug: str
    name: str
    ratings_per_turn: int | None = Field(description="empty: LEARNPORTAL_RATINGS_PER_TURN")
    lease_seconds: int | None = Field(description="empty: LEARNPORTAL_LEASE_SECONDS")
    blind: bool
    guidelines: str = Field(description="markdown, shown beside the rating task")

    @classmethod
    def of(cls, project: Project) -> Self:
        return cls.model_validate(project, from_attributes=True)


class ProjectList(Answer):
    results: list[ProjectAnswer]

    @classmethod
    def of(cls, projects: Iterable[Project]) -> Self:
        return cls(results=[ProjectAnswer.of(project) for project in projects])


class MemberAnswer(Answer):
    username: str
    role: Role

    @classmethod
    def of(cls, person: User, role: Role) -> Self:
        return cls(username=person.get_username(), role=role)


class MemberList(Answer):
    results: list[MemberAnswer]

    @classmethod
    def of(cls, members: Iterable[tuple[User, Role]]) -> Self:
        return cls(results=[MemberAnswer.of(person, role) for person, role in members])
