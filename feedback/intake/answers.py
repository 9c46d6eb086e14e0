"""What the intake rules' endpoints answer, each answer one pydantic model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import Field

from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from feedback.intake.models import IntakeRule


class StoredRule(Answer):
    id: int
    name: str
    enabled: bool
    component: str
    source: str
    polarity: str
    score_min: float | None
    score_max: float | None
    confidence_below: float | None
    judge_agreement_below: float | None
    metadata_key: str
    rate: float
    priority: int
    by: str
    created: float
    sent: int = Field(default=0, description="turns it let into the queue")
    sent_last_day: int = Field(default=0, description="of those, in the last 24 hours")

    @classmethod
    def of(cls, rule: IntakeRule) -> Self:
        return cls.model_validate(rule, from_attributes=True)


class RuleList(Answer):
    results: list[StoredRule] = Field(description="oldest first")
