"""The reviews of ratings as people read them (`GET /api/reviews/`): an annotator the reviews
of their own ratings, a reviewer, manager or site admin every one of the project's; newest
first, a page at a time (`cursor`: the id to go on below)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.reviews.answers import ReviewPage, StoredReview
from feedback.reviews.models import Amendment, Decision, RatingReview

if TYPE_CHECKING:
    from django.db.models import OuterRef, QuerySet

    from core.accounts.principals import Principal


def reviews_read(
    principal: Principal, *, limit: int, cursor: int | None = None, decision: str = ""
) -> ReviewPage:
    reviews = RatingReview.objects.filter(project_id=project_pk(principal.project))
    if not principal.may(Action.REVIEW_RATINGS):
        reviews = reviews.filter(feedback__annotator_id=principal.name)
    if decision:
        reviews = reviews.filter(decision=decision)
    if cursor is not None:
        reviews = reviews.filter(id__lt=cursor)
    rows = reviews.order_by("-id").values_list(
        "id",
        "review_id",
        "feedback__feedback_id",
        "feedback__annotator_id",
        "feedback__correlation_id",
        "feedback__step_id",
    )
    # review_id: (its first row's id, feedback_id, annotator, correlation_id, step_id)
    found: dict[str, tuple[int, str, str, str, str]] = {}
    last = None
    for pk, review_id, feedback_id, annotator, key, step_id in rows.iterator(chunk_size=200):
        if review_id not in found and len(found) == limit:
            break
        # Rows of one review arrive together (one bulk insert, consecutive ids), newest first:
        # the last seen is its first row.
        found[review_id] = (pk, feedback_id, annotator, key, step_id)
        last = pk
    else:
        last = None
    by_pk = RatingReview.objects.in_bulk([pk for pk, *_ in found.values()])
    amended = [each.review_id for each in by_pk.values() if each.decision == Decision.AMENDED.value]
    amendments: dict[str, str] = {}  # review_id: the amendment's first row
    for review_id, feedback_id in (
        Amendment.objects.filter(review_id__in=amended)
        .order_by("-feedback_id")
        .values_list("review_id", "feedback__feedback_id")
    ):
        amendments[review_id] = feedback_id
    results = [
        StoredReview.of(
            by_pk[pk],
            feedback_id,
            annotator,
            amendments.get(by_pk[pk].review_id),
            correlation_id=key,
            step_id=step_id,
        )
        for pk, feedback_id, annotator, key, step_id in found.values()
    ]
    return ReviewPage(results=results, next=None if last is None else str(last))


def overruled(
    who: str, project: int, *, key: str | OuterRef, step_id: str | OuterRef
) -> QuerySet[RatingReview]:
    """The reviews that took a rating of this person's of a unit (its turn's correlation_id
    `key`, its step id) back out of what counts, rejected or amended: the queue does not hand
    them that unit again, whoever else it still needs."""
    return RatingReview.objects.filter(
        project_id=project,
        feedback__annotator_id=who,
        feedback__correlation_id=key,
        feedback__step_id=step_id,
    ).exclude(decision=Decision.ACCEPTED.value)
