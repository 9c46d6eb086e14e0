"""What `/api/projects/` answers, each answer one pydantic model built by `.of()`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import Field

from core.accounts.roles import Role
from core.projects.invitations import waiting
from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.accounts.models import User
    from core.projects.guidelines import Guidelines
    from core.projects.invitations import Invitation
    from core.projects.models import Project


class ProjectAnswer(Answer):
    slug: str
    name: str
    ratings_per_turn: int | None = Field(description="empty: LEARNPORTAL_RATINGS_PER_TURN")
    lease_seconds: int | None = Field(description="empty: LEARNPORTAL_LEASE_SECONDS")
    blind: bool
    priority_negative: int = Field(
        description="how far up the queue a turn moves when its agent or environment judged "
        "it badly"
    )
    priority_unsure: int = Field(
        description="how far up the queue a turn moves when a feedback on it is unsure"
    )
    guidelines: str = Field(description="markdown, shown beside the rating task")
    guidelines_ack_required: bool = Field(
        description="people acknowledge each new version of the guidelines before they rate again"
    )
    comparisons_as_evidence: bool = Field(
        description="each judged comparison counts as routing evidence: the winner's component "
        "a success, the loser's a failure"
    )
    compare_turns: bool = Field(
        description="turns of one session that answer one prompt, from different components, "
        "form a comparison"
    )
    gold_rate: float = Field(description="the share of each person's queue that is gold items")
    gold_min_items: int = Field(
        description="gold items a person rates before their accuracy can pause their queue"
    )
    gold_pause_below: float = Field(
        description="a person's queue pauses when their gold accuracy is below this (0: never)"
    )
    judges_weighed: bool = Field(
        description="agents' and environments' feedback counts in stats, and as routing "
        "evidence, as far as its judge agrees with people"
    )

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
    invited: bool = Field(description="invited and not yet signed in: no password chosen")

    @classmethod
    def of(cls, person: User, role: Role) -> Self:
        return cls(username=person.get_username(), role=role, invited=waiting(person))


class InvitationAnswer(MemberAnswer):
    url: str = Field(
        description="the one-time link where the person chooses a password: give it to them "
        "yourself; it is not kept and not shown again"
    )
    expires: float = Field(description="epoch seconds: the link's end")

    @classmethod
    def of_invitation(cls, invitation: Invitation, url: str) -> Self:
        member = MemberAnswer.of(invitation.person, invitation.role)
        return cls(**member.model_dump(), url=url, expires=invitation.expires)


class MemberList(Answer):
    results: list[MemberAnswer]

    @classmethod
    def of(cls, members: Iterable[tuple[User, Role]]) -> Self:
        return cls(results=[MemberAnswer.of(person, role) for person, role in members])


class GuidelinesEntry(Answer):
    """One version in the list: who saved it, when."""

    version: int
    by: str = Field(description="empty: written before versions were kept")
    created: float | None = Field(description="epoch seconds")

    @classmethod
    def of(cls, guidelines: Guidelines) -> Self:
        return cls(version=guidelines.version, by=guidelines.by, created=guidelines.created)


class GuidelinesVersionAnswer(GuidelinesEntry):
    """One version of a project's guidelines; version 0: it has written none."""

    guidelines: str = Field(description="the project's own markdown")
    questions: dict[str, str] = Field(description="a rubric question's key to its markdown")

    @classmethod
    def of(cls, guidelines: Guidelines) -> Self:
        return cls(
            version=guidelines.version,
            by=guidelines.by,
            created=guidelines.created,
            guidelines=guidelines.text,
            questions=guidelines.questions,
        )


class GuidelinesAnswer(GuidelinesVersionAnswer):
    """The current version, what the caller has read of them, and the newest versions."""

    ack_required: bool = Field(description="the project's guidelines_ack_required")
    acknowledged: int = Field(description="the newest version you have acknowledged; 0: none")
    due: int | None = Field(description="the version you must acknowledge before you rate")
    versions: list[GuidelinesEntry] = Field(description="the newest versions, newest first")

    @classmethod
    def current(
        cls,
        guidelines: Guidelines,
        *,
        ack_required: bool,
        acknowledged: int,
        due: int | None,
        versions: Iterable[Guidelines],
    ) -> Self:
        return cls(
            **GuidelinesVersionAnswer.of(guidelines).model_dump(),
            ack_required=ack_required,
            acknowledged=acknowledged,
            due=due,
            versions=[GuidelinesEntry.of(version) for version in versions],
        )


class AcknowledgedAnswer(Answer):
    version: int = Field(description="the version you acknowledged")
    due: int | None = Field(description="a version you must still acknowledge before you rate")
