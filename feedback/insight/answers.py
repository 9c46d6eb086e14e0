"""What `GET /api/annotators/` answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import Field

from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from feedback.gold.reads import PersonAccuracy
    from feedback.insight.reads import PersonInsight, Reviewed


class GoldFigures(Answer):
    items: int = Field(description="gold items rated in the period")
    compared: int = Field(description="known answers their ratings were compared on")
    matched: int = Field(description="of those, the answers they gave")
    accuracy: float | None = Field(description="matched / compared; null: none compared")
    interval: tuple[float, float] | None = Field(description="the accuracy's 95% Wilson interval")

    @classmethod
    def of(cls, gold: PersonAccuracy) -> Self:
        return cls(
            items=gold.items,
            compared=gold.compared,
            matched=gold.matched,
            accuracy=gold.accuracy,
            interval=gold.interval,
        )


class ReviewFigures(Answer):
    accepted: int = Field(description="their ratings of the period a reviewer accepted")
    rejected: int = Field(description="rejected, with a reason")
    amended: int = Field(description="amended: the reviewer's rating took their place")

    @classmethod
    def of(cls, reviews: Reviewed) -> Self:
        return cls(accepted=reviews.accepted, rejected=reviews.rejected, amended=reviews.amended)


class PersonFigures(Answer):
    username: str
    items: int = Field(
        description="their ratings of the period that count (whole turns, steps, sessions); "
        "a rating on the rubric once, however many answers it scored"
    )
    timed: int = Field(description="of those, the ones that ended their lease: timed")
    seconds_median: float | None = Field(
        description="the median seconds from being handed an item to rating it; null: none timed"
    )
    seconds_p90: float | None = Field(description="the 90th percentile of those seconds")
    skips: int = Field(description="turns or steps they skipped in the period")
    gold: GoldFigures = Field(description="their accuracy on the gold items they rated")
    reviews: ReviewFigures = Field(description="the reviewers' decisions on their ratings")
    acceptance: float | None = Field(description="accepted / decided; null: none decided")
    alpha_without: float | None = Field(
        description="Krippendorff's alpha (interval) of the people's whole-turn scores, a unit "
        "a (turn, dimension), leaving this person out; null: too few units or no spread"
    )
    alpha_all: float | None = Field(description="the same alpha with everyone: one for all rows")

    @classmethod
    def of(cls, person: PersonInsight) -> Self:
        return cls(
            username=person.username,
            items=person.items,
            timed=person.timed,
            seconds_median=person.seconds_median,
            seconds_p90=person.seconds_p90,
            skips=person.skips,
            gold=GoldFigures.of(person.gold),
            reviews=ReviewFigures.of(person.reviews),
            acceptance=person.acceptance,
            alpha_without=person.alpha_without,
            alpha_all=person.alpha_all,
        )


class AnnotatorsAnswer(Answer):
    since: float = Field(description="the period's start, epoch seconds (at or after)")
    until: float = Field(description="its end, epoch seconds (before)")
    results: list[PersonFigures] = Field(
        description="by name: everyone who rated, skipped or was scored in the period, for "
        "reviewers, managers and site admins; an annotator's own row only"
    )
