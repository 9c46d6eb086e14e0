"""What the reviews' endpoints answer, each answer one pydantic model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from pydantic import Field

from feedback.answers import StoredFeedback
from feedback.exports import as_items
from learnportal_protocol.models import Answer

if TYPE_CHECKING:
    from feedback.reviews.decisions import Reviewed
    from feedback.reviews.models import RatingReview
    from feedback.reviews.queue import ReviewHeld


class RatingUnderReview(Answer):
    feedback_id: str = Field(description="the rating's name: its first row's feedback_id")
    annotator: str
    feedbacks: list[StoredFeedback] = Field(
        description="the rating's rows, as the explorer lists them (with the rated turn)"
    )
    answers: dict[str, Any] | None = Field(
        description="a rubric's rating: every answer it gave; null for one of the default form"
    )


class ReviewLeased(Answer):
    rating: RatingUnderReview
    lease_expires: float

    @classmethod
    def of(cls, held: ReviewHeld) -> Self:
        first = held.rows[0]
        rating = RatingUnderReview(
            feedback_id=first.feedback_id,
            annotator=first.annotator_id,
            feedbacks=as_items(held.rows),
            answers=held.answers,
        )
        return cls(rating=rating, lease_expires=held.expires)


AMENDMENT = Field(
    description="amended: the reviewer's rating in its place (its first row's feedback_id)"
)


class ReviewCreated(Answer):
    review_id: str
    decision: str = Field(description="accepted, rejected or amended")
    feedback_ids: list[str] = Field(description="the rating's rows the decision is on")
    amendment: str | None = AMENDMENT

    @classmethod
    def of(cls, reviewed: Reviewed) -> Self:
        return cls(
            review_id=reviewed.review_id,
            decision=reviewed.decision,
            feedback_ids=reviewed.feedback_ids,
            amendment=reviewed.amendment[0] if reviewed.amendment else None,
        )


class StoredReview(Answer):
    review_id: str
    feedback_id: str = Field(description="the rating's first row")
    annotator: str
    reviewer: str
    decision: str = Field(description="accepted, rejected or amended")
    reason: str
    ts: float
    amendment: str | None = AMENDMENT
    correlation_id: str = Field(default="", description="the rated turn's correlation_id")
    step_id: str = Field(
        default="", description='the step rated: "" the whole turn, "@session" its session'
    )

    @classmethod
    def of(
        cls,
        review: RatingReview,
        feedback_id: str,
        annotator: str,
        amendment: str | None,
        *,
        correlation_id: str = "",
        step_id: str = "",
    ) -> Self:
        return cls(
            review_id=review.review_id,
            feedback_id=feedback_id,
            annotator=annotator,
            reviewer=review.reviewer,
            decision=review.decision,
            reason=review.reason,
            ts=review.ts,
            amendment=amendment,
            correlation_id=correlation_id,
            step_id=step_id,
        )


class ReviewPage(Answer):
    results: list[StoredReview] = Field(description="newest first")
    next: str | None = Field(description="the cursor of the next page; null: none")
