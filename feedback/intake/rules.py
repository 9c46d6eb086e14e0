"""A project's intake rules, made, changed and read by its managers (`/api/intake-rules/`):
each with how many turns it let into the queue, in all and in the last day."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal, Self

from django.db.models import Count, Q
from pydantic import Field, model_validator

from core.accounts.roles import Action
from core.projects.models import MAX_PRIORITY_WEIGHT
from core.projects.selection import project_pk
from feedback.intake.models import RULE_NAME_LENGTH, IntakeRule
from learnportal_protocol.errors import detail, not_found
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import NAME_LENGTH, NO_CONTROL, StrictModel

if TYPE_CHECKING:
    from core.accounts.principals import Principal

DAY = 24 * 3600
FIELDS = (
    "name",
    "enabled",
    "component",
    "source",
    "polarity",
    "score_min",
    "score_max",
    "confidence_below",
    "judge_agreement_below",
    "metadata_key",
    "rate",
    "priority",
)


class IntakeRuleRequest(StrictModel):
    name: str = Field(min_length=1, max_length=RULE_NAME_LENGTH, pattern=NO_CONTROL)
    enabled: bool = True
    component: str = Field(
        default="", max_length=NAME_LENGTH, pattern=NO_CONTROL, description="empty: any"
    )
    source: Literal["", "self", "env", "human"] = Field(default="", description="empty: any")
    polarity: Literal["", "positive", "negative", "neutral", "corrective"] = Field(
        default="", description="empty: any"
    )
    score_min: float | None = Field(default=None, ge=-1e9, le=1e9)
    score_max: float | None = Field(default=None, ge=-1e9, le=1e9)
    confidence_below: float | None = Field(
        default=None, gt=0, le=1, description="a feedback whose confidence is below this"
    )
    judge_agreement_below: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="an agent's or environment's feedback whose judge's weight on its "
        "dimension (its agreement with people, GET /api/judges/) is below this, or not "
        "measured yet",
    )
    metadata_key: str = Field(
        default="",
        max_length=NAME_LENGTH,
        pattern=NO_CONTROL,
        description="a key the turn's `environment` object holds at its top level; empty: any",
    )
    rate: float = Field(ge=0, le=1, description="the share of what matches it takes")
    priority: int = Field(default=0, ge=0, le=MAX_PRIORITY_WEIGHT)
    project: str = Field(default="", max_length=50, description="the project, as `?project=`")

    @model_validator(mode="after")
    def _range_in_order(self) -> Self:
        if (
            self.score_min is not None
            and self.score_max is not None
            and self.score_min > self.score_max
        ):
            raise FieldError("score_max", "score_max is at least score_min")
        return self


def rule_add(principal: Principal, request: IntakeRuleRequest) -> IntakeRule:
    principal.require(Action.MANAGE_PROJECT)
    return IntakeRule.objects.create(
        project_id=project_pk(principal.project),
        by=principal.name,
        created=time.time(),
        **request.model_dump(include=set(FIELDS)),
    )


def rule_change(principal: Principal, rule_id: int, request: IntakeRuleRequest) -> IntakeRule:
    """Replace the rule's fields with the request's (a PUT): from now on, it takes what it
    says; turns it took before stay in."""
    rule = _rule(principal, rule_id)
    for name, value in request.model_dump(include=set(FIELDS)).items():
        setattr(rule, name, value)
    rule.save()
    return rule


def rule_remove(principal: Principal, rule_id: int) -> None:
    """Delete the rule; the turns it let in stay in the queue."""
    _rule(principal, rule_id).delete()


def rules_read(principal: Principal, *, now: float | None = None) -> list[IntakeRule]:
    """The project's rules, oldest first, each annotated with `sent` and `sent_last_day`."""
    principal.require(Action.MANAGE_PROJECT)
    since = (time.time() if now is None else now) - DAY
    return list(
        IntakeRule.objects.filter(project_id=project_pk(principal.project))
        .annotate(
            sent=Count("admissions"),
            sent_last_day=Count("admissions", filter=Q(admissions__ts__gte=since)),
        )
        .order_by("id")
    )


def _rule(principal: Principal, rule_id: int) -> IntakeRule:
    principal.require(Action.MANAGE_PROJECT)
    rule = IntakeRule.objects.filter(pk=rule_id, project_id=project_pk(principal.project)).first()
    if rule is None:
        raise not_found("No such intake rule in this project.", [detail(["rule"], "no such rule")])
    return rule
