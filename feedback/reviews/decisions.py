"""A reviewer's decision on a person's rating (`POST /api/reviews/`): accepted, or rejected with
a reason. A rejection takes the rating back out of what counts, as its author's undo does
(feedback.retractions): it leaves the exports, the agreement, the stats and the evidence of
routing, and its turn needs a rating again. The rating stays stored, beside its review.

A rating is named by the `feedback_id` of any of its rows (a rubric's rating is a row a scored
answer); it is reviewed once, never by its own author, and only while it counts.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from django.db import transaction
from pydantic import Field, model_validator

from core.accounts.roles import Action
from core.events import broadcast_on_commit
from core.projects.selection import project_pk
from feedback.retractions import rating_rows_of, rating_take_back
from feedback.reviews.models import REASON_LENGTH, Decision, RatingReview, ReviewLease
from feedback.selectors.visibility import counted_feedback
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import conflict, detail, not_found
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import Name, RequiredName, StrictModel, Text

if TYPE_CHECKING:
    from core.accounts.principals import Principal

OWN_RATING = "a rating is reviewed by someone other than its author"
REVIEWED_ALREADY = "this rating is reviewed already"
NO_RATING = "no rating of this project that counts has this feedback_id"
DECISIONS = {"accept": Decision.ACCEPTED, "reject": Decision.REJECTED}


class ReviewRequest(StrictModel):
    feedback_id: RequiredName = Field(description="the feedback_id of any row of the rating")
    decision: Literal["accept", "reject"]
    reason: Text = Field(
        default="", max_length=REASON_LENGTH, description="why: required with a rejection"
    )
    project: Name = Field(default="", description="the project reviewed in, as `?project=`")

    @model_validator(mode="after")
    def _rejection_says_why(self) -> ReviewRequest:
        if self.decision == "reject" and not self.reason.strip():
            raise FieldError("reason", "a rejection says why")
        return self


@dataclass(frozen=True)
class Reviewed:
    review_id: str
    decision: str
    feedback_ids: list[str]  # the rating's rows


def review_record(
    *, principal: Principal, request: ReviewRequest, now: float | None = None
) -> Reviewed:
    """Store the reviewer's decision on the rating, or refuse it and change nothing."""
    principal.require(Action.REVIEW_RATINGS)
    now = time.time() if now is None else now
    project = project_pk(principal.project)
    decision = DECISIONS[request.decision]
    with transaction.atomic():
        row = (
            counted_feedback(project)
            .select_for_update()
            .filter(feedback_id=request.feedback_id, source=FeedbackSource.HUMAN.value)
            .first()
        )
        if row is None:
            raise not_found(
                f"No rating with feedback_id {request.feedback_id!r} counts in this project.",
                [detail(["feedback_id"], NO_RATING)],
            )
        if row.annotator_id == principal.name:
            raise conflict(
                f"You may not review your own rating {request.feedback_id!r}.",
                [detail(["feedback_id"], OWN_RATING)],
            )
        rows = rating_rows_of(row)
        if RatingReview.objects.filter(feedback__in=rows).exists():
            raise conflict(
                f"The rating {request.feedback_id!r} is reviewed already.",
                [detail(["feedback_id"], REVIEWED_ALREADY)],
            )
        review_id = uuid.uuid4().hex
        RatingReview.objects.bulk_create(
            RatingReview(
                review_id=review_id,
                project_id=project,
                feedback=each,
                reviewer=principal.name,
                decision=decision,
                reason=request.reason,
                ts=now,
            )
            for each in rows
        )
        ReviewLease.objects.filter(feedback__in=rows).delete()
        if decision is Decision.REJECTED:
            rating_take_back(project, rows, by=principal.name, now=now)
        broadcast_on_commit(
            "rating.reviewed",
            {
                "review_id": review_id,
                "feedback_id": rows[0].feedback_id,
                "decision": decision.value,
                "annotator": row.annotator_id,
                "by": principal.name,
            },
            project=principal.project,
            audience=Action.REVIEW_RATINGS,
        )
    return Reviewed(review_id, decision.value, [each.feedback_id for each in rows])
