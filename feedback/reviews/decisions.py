"""A reviewer's decision on a person's rating (`POST /api/reviews/`): accepted, rejected with a
reason, or amended. A rejection takes the rating back out of what counts, as its author's undo
does (feedback.retractions): it leaves the exports, the agreement, the stats and the evidence of
routing, and its turn needs a rating again. An amendment takes it back as a rejection does and
stores the reviewer's own answers in its place, a rating of theirs of the same turn, step or
session through the one rating service (feedback.services.ratings): a new record, never an
overwrite. Either way the rating stays stored, beside its review.

A rating is named by the `feedback_id` of any of its rows (a rubric's rating is a row a scored
answer); it is reviewed once, never by its own author, and only while it counts.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from django.db import transaction
from pydantic import ConfigDict, Field, model_validator

from core.accounts.roles import Action
from core.events import broadcast_on_commit
from core.projects.selection import project_pk
from feedback.models import FEEDBACK_ID_SEPARATOR, Turn
from feedback.queue import queue_assign
from feedback.raters import unit_word
from feedback.retractions import rating_rows_of, rating_take_back
from feedback.reviews.models import REASON_LENGTH, Amendment, Decision, RatingReview, ReviewLease
from feedback.selectors.visibility import counted_feedback
from feedback.services.ratings import Remarks, rating_record
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import conflict, detail, not_found
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import NOT_BLANK, Name, RequiredName, Span, StrictModel, Text

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from feedback.models import Feedback

OWN_RATING = "a rating is reviewed by someone other than its author"
REVIEWED_ALREADY = "this rating is reviewed already"
NO_RATING = "no rating of this project that counts has this feedback_id"
NO_TURN = "a rating of no stored turn is accepted or rejected, not amended"
RATED_IT = "you rated this {unit} yourself: accept or reject this rating"
AMENDMENT_ONLY = "only an amendment gives answers and remarks"
DECISIONS = {"accept": Decision.ACCEPTED, "reject": Decision.REJECTED, "amend": Decision.AMENDED}


def _amendment_fields_absent() -> dict[str, Any]:
    return {
        "answers": {"type": "null"},
        "comment": {"maxLength": 0},
        "correction": {"maxLength": 0},
        "correction_span": {"type": "null"},
        "rubric_version": {"type": "null"},
    }


class ReviewRequest(StrictModel):
    # What `_each_decision_its_fields` says, for the schema.
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {"properties": {"decision": {"const": "accept"}, **_amendment_fields_absent()}},
                {
                    "required": ["reason"],
                    "properties": {
                        "decision": {"const": "reject"},
                        "reason": {"pattern": NOT_BLANK},
                        **_amendment_fields_absent(),
                    },
                },
                {
                    "required": ["answers"],
                    "properties": {"decision": {"const": "amend"}, "answers": {"type": "object"}},
                },
            ]
        }
    )

    feedback_id: RequiredName = Field(description="the feedback_id of any row of the rating")
    decision: Literal["accept", "reject", "amend"]
    reason: Text = Field(
        default="", max_length=REASON_LENGTH, description="why: required with a rejection"
    )
    project: Name = Field(default="", description="the project reviewed in, as `?project=`")
    # An amendment's rating, as POST /api/ratings/ takes one, of what the rating rated.
    answers: dict[str, Any] | None = Field(
        default=None,
        description="amend: the reviewer's answers to the current rubric, which take the "
        "rating's place",
    )
    comment: Text = ""
    correction: Text = Field(default="", description="amend: a better response")
    correction_span: Span | None = Field(
        default=None, description="amend: [start, end) of the response the correction replaces"
    )
    rubric_version: int | None = Field(
        default=None, ge=1, description="amend: the rubric version the answers were given on"
    )

    @model_validator(mode="after")
    def _each_decision_its_fields(self) -> ReviewRequest:
        if self.decision == "reject" and not self.reason.strip():
            raise FieldError("reason", "a rejection says why")
        if self.decision == "amend" and self.answers is None:
            raise FieldError(
                "answers", "an amendment gives the answers that take the rating's place"
            )
        if self.decision != "amend":
            given = [name for name in AMENDMENT_FIELDS if getattr(self, name) not in (None, "")]
            if given:
                raise FieldError(given[0], AMENDMENT_ONLY)
        return self

    def remarks(self) -> Remarks:
        span = None if self.correction_span is None else tuple(self.correction_span)
        return Remarks(self.comment, self.correction, span)  # type: ignore[arg-type]


AMENDMENT_FIELDS = ("answers", "comment", "correction", "correction_span", "rubric_version")


@dataclass(frozen=True)
class Reviewed:
    review_id: str
    decision: str
    feedback_ids: list[str]  # the rating's rows
    amendment: list[str]  # the rows of the reviewer's rating in its place, if amended


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
        if decision is not Decision.ACCEPTED:
            rating_take_back(project, rows, by=principal.name, now=now)
        amendment = (
            _amend(principal, row, request, review_id) if request.answers is not None else []
        )
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
        broadcast_on_commit(
            "rating.reviewed",
            {
                "review_id": review_id,
                "feedback_id": rows[0].feedback_id,
                "decision": decision.value,
                "annotator": row.annotator_id,
                "by": principal.name,
                "amendment": amendment[0] if amendment else None,
            },
            project=principal.project,
            audience=Action.REVIEW_RATINGS,
        )
    return Reviewed(review_id, decision.value, [each.feedback_id for each in rows], amendment)


def _amend(
    principal: Principal, rating: Feedback, request: ReviewRequest, review_id: str
) -> list[str]:
    """Store the reviewer's rating of what `rating` rated (taken back already), in the caller's
    transaction: its rows' feedback_ids. Refused as a rating is (`invalid` naming each answer),
    or `conflict` when the reviewer rated it already: two ratings of theirs would count."""
    project = project_pk(principal.project)
    unit = unit_word(rating.step_id)
    turn = Turn.objects.filter(project_id=project, correlation_id=rating.correlation_id).first()
    if turn is None:
        raise conflict(
            f"The rating {rating.feedback_id!r} rates no stored turn: accept or reject it.",
            [detail(["feedback_id"], NO_TURN)],
        )
    theirs = counted_feedback(project).filter(
        source=FeedbackSource.HUMAN.value,
        annotator_id=principal.name,
        correlation_id=rating.correlation_id,
        step_id=rating.step_id,
    )
    if theirs.exists():
        said = RATED_IT.format(unit=unit)
        raise conflict(f"You rated this {unit} yourself.", [detail(["feedback_id"], said)])
    assert request.answers is not None
    # In place of the one taken back, whoever else's ratings the unit has: the raters' rule
    # lets the holder of its lease rate it (this takes the place of any lease the reviewer held).
    queue_assign(turn, principal.name, step_id=rating.step_id)
    outcome = rating_record(
        principal=principal,
        turn=rating.correlation_id,
        answers=request.answers,
        remarks=request.remarks(),
        rubric_version=request.rubric_version,
        step_id=rating.step_id,
    )
    made = list(
        counted_feedback(project)
        .filter(feedback_id__startswith=outcome.rating_id + FEEDBACK_ID_SEPARATOR)
        .order_by("id")
    )
    Amendment.objects.bulk_create(Amendment(review_id=review_id, feedback=each) for each in made)
    return [each.feedback_id for each in made]
