"""What the gold items' endpoints answer, each answer one pydantic model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from pydantic import Field

from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from feedback.gold.models import GoldComparison, GoldItem, QueuePause
    from feedback.gold.reads import PersonAccuracy


class StoredGold(Answer):
    turn: int = Field(description="the turn's id")
    correlation_id: str
    answers: dict[str, Any] = Field(description="question key to its known answer")
    rubric_version: int = Field(description="the rubric the answers were checked on")
    by: str
    ts: float
    rated: int = Field(default=0, description="people who rated it as a gold item")

    @classmethod
    def of(cls, gold: GoldItem) -> Self:
        return cls(
            turn=gold.turn_id,
            correlation_id=gold.turn.correlation_id,
            answers=gold.answers if isinstance(gold.answers, dict) else {},
            rubric_version=gold.rubric_version,
            by=gold.by,
            ts=gold.ts,
            rated=int(getattr(gold, "rated", 0)),
        )


class StoredGoldComparison(Answer):
    comparison: int = Field(description="the comparison's id")
    comparison_id: str = Field(description="as it was sent")
    best: str = Field(description="the known best candidate's candidate_id")
    by: str
    ts: float

    @classmethod
    def of(cls, gold: GoldComparison) -> Self:
        return cls(
            comparison=gold.comparison_id,
            comparison_id=gold.comparison.comparison_id,
            best=gold.best,
            by=gold.by,
            ts=gold.ts,
        )


class GoldPage(Answer):
    results: list[StoredGold] = Field(description="newest first")
    next: str | None = Field(description="the cursor of the next page; null: none")


class Pause(Answer):
    accuracy: float = Field(description="the accuracy that paused the queue")
    items: int
    threshold: float
    ts: float

    @classmethod
    def of(cls, pause: QueuePause) -> Self:
        return cls(
            accuracy=pause.accuracy, items=pause.items, threshold=pause.threshold, ts=pause.ts
        )


class PersonGold(Answer):
    annotator: str
    items: int = Field(description="gold items rated")
    compared: int = Field(description="known answers compared")
    matched: int
    accuracy: float | None = Field(description="matched / compared; null: none compared")
    interval: tuple[float, float] | None = Field(description="the accuracy's 95% Wilson interval")
    paused: Pause | None = Field(description="the pause of their queue, while it lasts")

    @classmethod
    def of(cls, person: PersonAccuracy) -> Self:
        return cls(
            annotator=person.annotator,
            items=person.items,
            compared=person.compared,
            matched=person.matched,
            accuracy=person.accuracy,
            interval=person.interval,
            paused=None if person.paused is None else Pause.of(person.paused),
        )


class GoldPeople(Answer):
    results: list[PersonGold] = Field(description="by name")
