"""People marked as judges (`/api/judges/marked/`, managers and site admins): a member of the
project whose ratings are measured against the other people's as a machine judge's are
(feedback.judges.calibration, named `user:<username>`), and weighed by that agreement in the
stats where the project weighs judges (feedback.judges.evidence). Their ratings stay people's
ratings everywhere else: exports, the queue, agreement among people."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pydantic import Field

from core.accounts.roles import Action
from core.projects.models import Membership
from core.projects.selection import project_pk
from feedback.judges.models import MarkedJudge
from learnportal_protocol.errors import detail, invalid, not_found
from learnportal_protocol.models import NO_CONTROL, USERNAME_LENGTH, StrictModel

if TYPE_CHECKING:
    from core.accounts.principals import Principal

PERSON_PREFIX = "user:"  # a marked person, named as a judge: as principals' keys name people


class MarkRequest(StrictModel):
    username: str = Field(min_length=1, max_length=USERNAME_LENGTH, pattern=NO_CONTROL)
    project: str = Field(default="", max_length=50, description="the project, as `?project=`")


def marked_people(project: int) -> set[str]:
    """The usernames marked as judges in the project."""
    return set(MarkedJudge.objects.filter(project_id=project).values_list("username", flat=True))


def mark_add(principal: Principal, request: MarkRequest) -> MarkedJudge:
    """Mark a member of the project as a judge (again: as it was)."""
    principal.require(Action.MANAGE_PROJECT)
    project = project_pk(principal.project)
    if not Membership.objects.filter(project_id=project, user__username=request.username).exists():
        said = "no member of the project"
        raise invalid(f"username: {said}", [detail(["username"], said)])
    mark, _ = MarkedJudge.objects.get_or_create(
        project_id=project,
        username=request.username,
        defaults={"by": principal.name, "ts": time.time()},
    )
    return mark


def mark_remove(principal: Principal, username: str) -> None:
    principal.require(Action.MANAGE_PROJECT)
    deleted, _ = MarkedJudge.objects.filter(
        project_id=project_pk(principal.project), username=username
    ).delete()
    if not deleted:
        said = "not marked as a judge in this project"
        raise not_found(f"{username[:50]!r} is {said}.", [detail(["username"], said)])


def marks_read(principal: Principal) -> list[MarkedJudge]:
    principal.require(Action.MANAGE_PROJECT)
    return list(
        MarkedJudge.objects.filter(project_id=project_pk(principal.project)).order_by("username")
    )
