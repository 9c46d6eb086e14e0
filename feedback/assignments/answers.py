"""What the queue assignments' endpoints answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import Field

from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from feedback.assignments.models import QueueAssignment


class StoredAssignment(Answer):
    id: int
    component: str = Field(description="the component whose turns it keeps")
    rule: int | None = Field(
        default=None, description="the intake rule whose turns it keeps (neither: the whole queue)"
    )
    usernames: list[str] = Field(description="the people it keeps them for")
    by: str
    created: float

    @classmethod
    def of(cls, assignment: QueueAssignment) -> Self:
        return cls(
            id=assignment.pk,
            component=assignment.component,
            rule=assignment.rule_id,
            usernames=assignment.usernames,
            by=assignment.by,
            created=assignment.created,
        )


class AssignmentList(Answer):
    results: list[StoredAssignment] = Field(description="by component, the whole queue first")
