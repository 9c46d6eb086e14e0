"""The reviews of ratings as people read them (`GET /api/reviews/`): an annotator the reviews
of their own ratings, a reviewer, manager or site admin every one of the project's; newest
first, a page at a time (`cursor`: the id to go on below)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.reviews.answers import ReviewPage, StoredReview
from feedback.reviews.models import RatingReview

if TYPE_CHECKING:
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
        "id", "review_id", "feedback__feedback_id", "feedback__annotator_id"
    )
    found: dict[str, tuple[int, str, str]] = {}  # review_id: (its first row's id, ...)
    last = None
    for pk, review_id, feedback_id, annotator in rows.iterator(chunk_size=200):
        if review_id not in found and len(found) == limit:
            break
        # Rows of one review arrive together (one bulk insert, consecutive ids), newest first:
        # the last seen is its first row.
        found[review_id] = (pk, feedback_id, annotator)
        last = pk
    else:
        last = None
    by_pk = RatingReview.objects.in_bulk([pk for pk, _, _ in found.values()])
    results = [
        StoredReview.of(by_pk[pk], feedback_id, annotator)
        for pk, feedback_id, annotator in found.values()
    ]
    return ReviewPage(results=results, next=None if last is None else str(last))
