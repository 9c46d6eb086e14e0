"""Which part of a project's queue is kept for whom (`/api/queue-assignments/`, managers and
site admins), and what that leaves each person (`kept_from`, read by feedback.queue).

An assignment keeps one component's turns (or, with no component, the whole queue) for named
members of the project. Nobody else is leased those turns, their steps or their sessions; a
component assigned on its own is kept for its own people even from those of a whole-queue
assignment. Gold items come to everyone, at the project's rate: they measure people. What a
person holds when an assignment is made stays theirs until it ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Self

from django.db import IntegrityError, transaction
from django.db.models import Q
from pydantic import Field, StringConstraints, model_validator

from core.accounts.roles import Action
from core.projects.models import Membership
from core.projects.selection import project_pk
from feedback.assignments.models import QueueAssignment
from learnportal_protocol.errors import conflict, detail, invalid, not_found
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import NAME_LENGTH, NO_CONTROL, USERNAME_LENGTH, StrictModel

if TYPE_CHECKING:
    from core.accounts.principals import Principal

MAX_PEOPLE = 200
Person = Annotated[
    str, StringConstraints(min_length=1, max_length=USERNAME_LENGTH, pattern=NO_CONTROL)
]


class AssignmentRequest(StrictModel):
    component: str = Field(
        default="",
        max_length=NAME_LENGTH,
        pattern=NO_CONTROL,
        description="the component whose turns it keeps; empty: the whole queue",
    )
    usernames: list[Person] = Field(
        min_length=1, max_length=MAX_PEOPLE, description="members of the project, each once"
    )
    project: str = Field(default="", max_length=50, description="the project, as `?project=`")

    @model_validator(mode="after")
    def _each_once(self) -> Self:
        seen: set[str] = set()
        for index, name in enumerate(self.usernames):
            if name in seen:
                raise FieldError(("usernames", index), f"{name[:50]} is named twice")
            seen.add(name)
        return self


@dataclass(frozen=True)
class KeptFrom:
    """What the assignments keep from one person: the components assigned to others, and
    whether only their own components are left (a whole-queue assignment without them)."""

    components: frozenset[str]
    only: frozenset[str] | None  # None: every other component too

    def allows(self, field: str) -> Q:
        """The turns (by their component, at `field`) this leaves the person."""
        allowed = ~Q(**{f"{field}__in": sorted(self.components)}) if self.components else Q()
        if self.only is not None:
            allowed &= Q(**{f"{field}__in": sorted(self.only)})
        return allowed


NOTHING_KEPT = KeptFrom(frozenset(), None)


def kept_from(who: str, project: int) -> KeptFrom:
    """What the project's assignments leave this person (one small read a lease)."""
    rows = list(
        QueueAssignment.objects.filter(project_id=project).values_list("component", "usernames")
    )
    if not rows:
        return NOTHING_KEPT
    others = frozenset(c for c, names in rows if c and who not in names)
    mine = frozenset(c for c, names in rows if c and who in names)
    whole = next((names for c, names in rows if not c), None)
    return KeptFrom(others, None if whole is None or who in whole else mine)


def assignment_add(principal: Principal, request: AssignmentRequest) -> QueueAssignment:
    principal.require(Action.MANAGE_PROJECT)
    project = project_pk(principal.project)
    _members_check(project, request.usernames)
    try:
        with transaction.atomic():
            return QueueAssignment.objects.create(
                project_id=project,
                component=request.component,
                usernames=request.usernames,
                by=principal.name,
                created=time.time(),
            )
    except IntegrityError:
        raise _taken(request.component) from None


def assignment_change(
    principal: Principal, assignment_id: int, request: AssignmentRequest
) -> QueueAssignment:
    """Replace the assignment's component and people (a PUT)."""
    assignment = _assignment(principal, assignment_id)
    _members_check(assignment.project_id, request.usernames)
    assignment.component, assignment.usernames = request.component, request.usernames
    try:
        with transaction.atomic():
            assignment.save()
    except IntegrityError:
        raise _taken(request.component) from None
    return assignment


def assignment_remove(principal: Principal, assignment_id: int) -> None:
    _assignment(principal, assignment_id).delete()


def assignments_read(principal: Principal) -> list[QueueAssignment]:
    principal.require(Action.MANAGE_PROJECT)
    return list(
        QueueAssignment.objects.filter(project_id=project_pk(principal.project)).order_by(
            "component", "id"
        )
    )


def _members_check(project: int, usernames: list[str]) -> None:
    members = set(
        Membership.objects.filter(project_id=project, user__username__in=usernames).values_list(
            "user__username", flat=True
        )
    )
    missing = [
        detail(["usernames", index], f"{name[:50]} is no member of the project")
        for index, name in enumerate(usernames)
        if name not in members
    ]
    if missing:
        raise invalid(
            f"{len(missing)} of the people named are no members of the project; nothing was "
            "stored.",
            missing,
        )


def _taken(component: str) -> Exception:
    part = f"the component {component[:50]!r}" if component else "the whole queue"
    return conflict(
        f"An assignment of {part} exists already: change it instead.",
        [detail(["component"], "assigned already")],
    )


def _assignment(principal: Principal, assignment_id: int) -> QueueAssignment:
    principal.require(Action.MANAGE_PROJECT)
    found = QueueAssignment.objects.filter(
        pk=assignment_id, project_id=project_pk(principal.project)
    ).first()
    if found is None:
        raise not_found(
            "No such assignment in this project.", [detail(["assignment"], "no such assignment")]
        )
    return found
