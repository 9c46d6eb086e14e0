"""What `GET /api/judges/` answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import Field

from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from feedback.judges.calibration import JudgeQuestion
    from feedback.judges.metrics import Estimate
    from feedback.judges.models import MarkedJudge


class Figure(Answer):
    value: float | None = Field(description="null: too few items, or no spread to measure")
    interval: tuple[float, float] | None = Field(description="95%")

    @classmethod
    def of(cls, estimate: Estimate) -> Self:
        return cls(value=estimate.value, interval=estimate.interval)


class JudgeFigures(Answer):
    judge: str = Field(description="the credential that sent the feedback: token:<name>")
    question: str = Field(description="the dimension it scored")
    items: int = Field(description="whole turns people rated on it too")
    alpha: float | None = Field(description="Krippendorff's alpha (interval) of judge and people")
    kappa: Figure = Field(description="Cohen's kappa of their polarities")
    mae: Figure = Field(description="mean absolute error of its score from the people's mean")
    spearman: Figure = Field(description="Spearman's rho of its scores and the people's means")
    confusion: dict[str, dict[str, int]] = Field(
        description="the judge's polarity (negative, neutral, positive) to the people's: items"
    )
    weight: float | None = Field(
        description="what its feedback counts with where the project weighs judges "
        "(`judges_weighed`): alpha clipped to [0, 1]; null while fewer than "
        "LEARNPORTAL_JUDGE_MIN_ITEMS items say, when it counts in full"
    )

    @classmethod
    def of(cls, figures: JudgeQuestion) -> Self:
        return cls(
            judge=figures.judge,
            question=figures.question,
            items=figures.items,
            alpha=figures.alpha,
            kappa=Figure.of(figures.kappa),
            mae=Figure.of(figures.mae),
            spearman=Figure.of(figures.spearman),
            confusion=figures.confusion,
            weight=figures.weight,
        )


class JudgesAnswer(Answer):
    results: list[JudgeFigures] = Field(description="by judge, then question")


class MarkedJudgeAnswer(Answer):
    username: str
    judge: str = Field(description="as the judges' figures name it: user:<username>")
    by: str
    ts: float

    @classmethod
    def of(cls, mark: MarkedJudge) -> Self:
        return cls(username=mark.username, judge=f"user:{mark.username}", by=mark.by, ts=mark.ts)


class MarkedJudges(Answer):
    results: list[MarkedJudgeAnswer] = Field(description="by username")
