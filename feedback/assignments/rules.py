"""Which part of a project's queue is kept for whom (`/api/queue-assignments/`, managers and
site admins), and what that leaves each person (`kept_from`, read by feedback.queue).

An assignment keeps one component's turns, or the turns an intake rule let in (its filter:
feedback.intake), or with neither the whole queue, for named members of the project. Nobody
else is leased those turns, their steps or their sessions; a part assigned on its own is kept
for its own people even from those of a whole-queue assignment. Gold items come to everyone, at
the project's rate: they measure people. What a person holds when an assignment is made stays
theirs until it ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Self

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from pydantic import Field, StringConstraints, model_validator

from core.accounts.roles import Action
from core.projects.models import Membership
from core.projects.selection import project_pk
from feedback.assignments.models import QueueAssignment
from feedback.intake.models import Admission, IntakeRule
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
        description="the component whose turns it keeps; empty: by rule, or the whole queue",
    )
    rule: int | None = Field(
        default=None,
        ge=1,
        le=2**63 - 1,
        description="an intake rule's id: the turns it let in; null: by component, or all",
    )
    usernames: list[Person] = Field(
        min_length=1, max_length=MAX_PEOPLE, description="members of the project, each once"
    )
    project: str = Field(default="", max_length=50, description="the project, as `?project=`")

    @model_validator(mode="after")
    def _one_part_each_person_once(self) -> Self:
        if self.rule is not None and self.component:
            raise FieldError("rule", "a part is a component's turns or a rule's, not both")
        seen: set[str] = set()
        for index, name in enumerate(self.usernames):
            if name in seen:
                raise FieldError(("usernames", index), f"{name[:50]} is named twice")
            seen.add(name)
        return self


@dataclass(frozen=True)
class Parts:
    """Parts of a queue: components' turns, and the turns intake rules let in."""

    components: frozenset[str] = frozenset()
    rules: frozenset[int] = frozenset()

    def holding(self, component: str, turn: str) -> Q:
        """The turns in these parts, in a query where `component` and `turn` name the turn's
        component and the turn."""
        held = Q(pk__in=[])
        if self.components:
            held |= Q(**{f"{component}__in": sorted(self.components)})
        if self.rules:
            admitted = Admission.objects.filter(turn=OuterRef(turn), rule__in=sorted(self.rules))
            held |= Q(Exists(admitted))
        return held

    def __bool__(self) -> bool:
        return bool(self.components or self.rules)


@dataclass(frozen=True)
class KeptFrom:
    """What the assignments keep from one person: the parts assigned to others, and whether
    only their own parts are left (a whole-queue assignment without them)."""

    others: Parts
    only: Parts | None  # None: every other turn too

    def allows(self, component: str = "component_name", turn: str = "pk") -> Q:
        """The turns this leaves the person, in a query where `component` and `turn` name the
        turn's component and the turn."""
        allowed = ~self.others.holding(component, turn) if self.others else Q()
        if self.only is not None:
            allowed &= self.only.holding(component, turn)
        return allowed


NOTHING_KEPT = KeptFrom(Parts(), None)


def kept_from(who: str, project: int) -> KeptFrom:
    """What the project's assignments leave this person (one small read a lease)."""
    rows = list(
        QueueAssignment.objects.filter(project_id=project).values_list(
            "component", "rule", "usernames"
        )
    )
    if not rows:
        return NOTHING_KEPT

    def parts(named: bool) -> Parts:
        chosen = [(c, r) for c, r, names in rows if (c or r) and (who in names) == named]
        return Parts(frozenset(c for c, _ in chosen if c), frozenset(r for _, r in chosen if r))

    whole = next((names for c, r, names in rows if not c and not r), None)
    return KeptFrom(parts(named=False), None if whole is None or who in whole else parts(True))


def assignment_add(principal: Principal, request: AssignmentRequest) -> QueueAssignment:
    principal.require(Action.MANAGE_PROJECT)
    project = project_pk(principal.project)
    _members_check(project, request.usernames)
    _rule_check(project, request.rule)
    try:
        with transaction.atomic():
            return QueueAssignment.objects.create(
                project_id=project,
                component=request.component,
                rule_id=request.rule,
                usernames=request.usernames,
                by=principal.name,
                created=time.time(),
            )
    except IntegrityError:
        raise _taken(request) from None


def assignment_change(
    principal: Principal, assignment_id: int, request: AssignmentRequest
) -> QueueAssignment:
    """Replace the assignment's part and people (a PUT)."""
    assignment = _assignment(principal, assignment_id)
    _members_check(assignment.project_id, request.usernames)
    _rule_check(assignment.project_id, request.rule)
    assignment.component, assignment.rule_id = request.component, request.rule
    assignment.usernames = request.usernames
    try:
        with transaction.atomic():
            assignment.save()
    except IntegrityError:
        raise _taken(request) from None
    return assignment


def assignment_remove(principal: Principal, assignment_id: int) -> None:
    _assignment(principal, assignment_id).delete()


def assignments_read(principal: Principal) -> list[QueueAssignment]:
    principal.require(Action.MANAGE_PROJECT)
    return list(
        QueueAssignment.objects.filter(project_id=project_pk(principal.project))
        .select_related("rule")
        .order_by("rule", "component", "id")
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


def _rule_check(project: int, rule: int | None) -> None:
    if rule is not None and not IntakeRule.objects.filter(pk=rule, project_id=project).exists():
        raise invalid(
            "rule: no such intake rule in the project", [detail(["rule"], "no such rule")]
        )


def _taken(request: AssignmentRequest) -> Exception:
    if request.rule is not None:
        part, field = f"the turns of rule {request.rule}", "rule"
    elif request.component:
        part, field = f"the component {request.component[:50]!r}", "component"
    else:
        part, field = "the whole queue", "component"
    return conflict(
        f"An assignment of {part} exists already: change it instead.",
        [detail([field], "assigned already")],
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
