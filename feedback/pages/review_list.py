"""The reviews of ratings, listed (/reviews/): an annotator sees the reviews of their own
ratings, a reviewer, manager or site admin every one of the project's (feedback.reviews.reads,
as `GET /api/reviews/` reads them); newest first, a page at a time, of one decision if asked.
Each says what was decided on which rating of which turn, by whom, why, and for an amendment
the reviewer's answers that took the rating's place, in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.urls import reverse

from core.accounts.roles import Action
from core.inputs import id_of_signed, page_query, signed_id
from core.projects.selection import project_pk
from core.web import page, requires, when
from feedback.models import FEEDBACK_ID_SEPARATOR, Rating
from feedback.pages.guidelines import question_labels
from feedback.pages.reviews import Answered, answers_in_words, shortened
from feedback.raters import unit_word
from feedback.reviews.api import CURSOR_SALT, ReviewsQuery
from feedback.reviews.models import Decision
from feedback.reviews.reads import reviews_read
from learnportal_protocol.errors import LearnError

if TYPE_CHECKING:
    from datetime import datetime

    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.reviews.answers import StoredReview

PAGE_SIZE = 25
STEP_SHOWN = 60  # characters of a step's id in a row (an id may be long)
REASON_SHOWN = 400  # characters of a reason in a row (one may be 2000)
NO_SUCH_PAGE = "No such page: this link names no page of the reviews."


@dataclass(frozen=True)
class Listed:
    """One review as a row of the list shows it."""

    review: StoredReview
    unit: str  # what the rating rated: "turn", "the session of turn", "step <id> of turn"
    when: datetime | None
    reason: str  # cut to REASON_SHOWN
    amended: list[Answered] = field(default_factory=list)  # the reviewer's answers, in words


@dataclass(frozen=True)
class DecisionLink:
    label: str
    href: str
    current: bool


@requires(Action.QUEUE)  # every person's role: an annotator's reads their own ratings' reviews
def review_list(request: HttpRequest, principal: Principal) -> HttpResponse:
    query, problems = page_query(ReviewsQuery, request.GET)
    try:
        cursor = None if "cursor" in problems else id_of_signed(query.cursor, CURSOR_SALT)
    except LearnError:
        problems["cursor"] = NO_SUCH_PAGE
    if "cursor" in problems:  # forged, or too long to be one the page made
        return _list_page(request, principal, query.decision, no_page=True)
    found = reviews_read(principal, limit=PAGE_SIZE, cursor=cursor, decision=query.decision)
    kept = {"decision": query.decision} if query.decision else {}
    context = {
        "reviews": _listed(principal, found.results),
        "query_errors": problems,
        "next_url": None
        if found.next is None
        else "?" + urlencode({**kept, "cursor": signed_id(int(found.next), CURSOR_SALT)}),
        "first_url": "?" + urlencode(kept) if cursor is not None else None,
    }
    status = 400 if problems else 200
    return _list_page(request, principal, query.decision, context, status=status)


def _list_page(
    request: HttpRequest,
    principal: Principal,
    decision: str,
    context: dict[str, Any] | None = None,
    *,
    no_page: bool = False,
    status: int = 200,
) -> HttpResponse:
    """The page: its rows (`context`), or with `no_page` none but a 404's sentence."""
    deciders = principal.may(Action.REVIEW_RATINGS)
    shown: dict[str, Any] = {
        "reviews": [],
        "sees_all": deciders,
        "may_review": deciders,
        "decision": decision,
        "decision_links": _decision_links(decision),
        "no_page": NO_SUCH_PAGE if no_page else "",
        "first_url": "?" + urlencode({"decision": decision} if decision else {}),
        **(context or {}),
    }
    return page(request, "feedback/reviews.html", shown, status=404 if no_page else status)


def _decision_links(current: str) -> list[DecisionLink]:
    url = reverse("portal:reviews")
    links = [DecisionLink("All", url, current == "")]
    for decision in Decision:
        href = f"{url}?{urlencode({'decision': decision.value})}"
        links.append(DecisionLink(decision.label, href, current == decision.value))
    return links


def _listed(principal: Principal, reviews: list[StoredReview]) -> list[Listed]:
    project = project_pk(principal.project)
    amended = _amendments_answers(project, reviews)
    labels = question_labels(project) if amended else {}
    return [
        Listed(
            review,
            _unit(review.step_id),
            when(review.ts),
            shortened(review.reason, REASON_SHOWN),
            answers_in_words(amended.get(review.review_id) or {}, labels),
        )
        for review in reviews
    ]


def _unit(step_id: str) -> str:
    """What a rating with this step id rated, in words that the turn's id follows."""
    unit = unit_word(step_id)
    if unit == "turn":
        return "turn"
    return (
        f"the {unit} of turn"
        if unit != "step"
        else f"step {shortened(step_id, STEP_SHOWN)} of turn"
    )


def _amendments_answers(project: int, reviews: list[StoredReview]) -> dict[str, dict[str, Any]]:
    """The answers of each amendment's rating (the reviewer's, in the rating's place), by
    review_id, in one query."""
    rating_of = {
        review.amendment.partition(FEEDBACK_ID_SEPARATOR)[0]: review.review_id
        for review in reviews
        if review.amendment
    }
    if not rating_of:
        return {}
    rows = Rating.objects.filter(project_id=project, rating_id__in=rating_of).values_list(
        "rating_id", "answers"
    )
    return {
        rating_of[rating_id]: answers for rating_id, answers in rows if isinstance(answers, dict)
    }
