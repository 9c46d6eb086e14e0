"""The review queue (`POST /api/reviews/next/`, `/api/reviews/release/`): each reviewer holds
one rating at a time for `LEARNPORTAL_LEASE_SECONDS`, the oldest rating that counts, has no
review, is no amendment (a reviewer's, reviewed by its making), is not theirs and is not held by
another reviewer; held again, the same one comes back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.models import FEEDBACK_ID_SEPARATOR, Feedback, Rating, project_of
from feedback.retractions import rating_rows_of
from feedback.reviews.models import Amendment, RatingReview, ReviewLease
from feedback.selectors.visibility import counted_feedback
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from core.accounts.principals import Principal


@dataclass(frozen=True)
class ReviewHeld:
    rows: list[Feedback]  # the rating's, the first its name
    answers: dict[str, Any] | None  # a rubric's rating: every answer it gave
    expires: float


def review_next(principal: Principal, *, now: float | None = None) -> ReviewHeld | None:
    """The rating this reviewer holds (a new one if they hold none), or None when none is left
    for them."""
    principal.require(Action.REVIEW_RATINGS)
    now = time.time() if now is None else now
    who = principal.name
    project = project_pk(principal.project)
    with transaction.atomic():
        held = _held_by(who, project, now)
        if held:
            return _held(held, expires=ReviewLease.objects.filter(feedback=held[0]).get().expires)
        ReviewLease.objects.filter(username=who).delete()
        open_rows = (
            counted_feedback(project)
            .filter(source=FeedbackSource.HUMAN.value)
            .exclude(annotator_id=who)
            .exclude(Exists(RatingReview.objects.filter(feedback=OuterRef("pk"))))
            .exclude(Exists(Amendment.objects.filter(feedback=OuterRef("pk"))))
            .exclude(
                Exists(
                    ReviewLease.objects.filter(feedback=OuterRef("pk"), expires__gt=now).exclude(
                        username=who
                    )
                )
            )
            .order_by("id")
        )
        for row in open_rows.select_for_update(skip_locked=True)[:1]:
            rows = rating_rows_of(row)
            expires = now + settings.LEARNPORTAL_LEASE_SECONDS
            ReviewLease.objects.filter(feedback__in=rows).delete()  # others', expired
            ReviewLease.objects.bulk_create(
                ReviewLease(feedback=each, username=who, expires=expires) for each in rows
            )
            return _held(rows, expires=expires)
    return None


def review_release(principal: Principal) -> int:
    """Give back the rating this reviewer holds: how many rows it had (0: none held)."""
    principal.require(Action.REVIEW_RATINGS)
    deleted, _ = ReviewLease.objects.filter(username=principal.name).delete()
    return deleted


def _held_by(who: str, project: int, now: float) -> list[Feedback]:
    """The rows of the rating `who` holds, while the lease lasts and the rating still counts
    unreviewed; else none."""
    leased = list(
        ReviewLease.objects.filter(username=who, expires__gt=now, feedback__project_id=project)
        .values_list("feedback_id", flat=True)
        .order_by("feedback_id")
    )
    if not leased:
        return []
    rows = list(
        counted_feedback(project)
        .filter(pk__in=leased)
        .exclude(Exists(RatingReview.objects.filter(feedback=OuterRef("pk"))))
        .order_by("id")
    )
    return rows if len(rows) == len(leased) else []


def _held(rows: list[Feedback], *, expires: float) -> ReviewHeld:
    rating_id = rows[0].feedback_id.partition(FEEDBACK_ID_SEPARATOR)[0]
    answers = (
        Rating.objects.filter(
            project_id=project_of(rows[0]), rating_id=rating_id, annotator=rows[0].annotator_id
        )
        .values_list("answers", flat=True)
        .first()
    )
    return ReviewHeld(rows, answers if isinstance(answers, dict) else None, expires)
