"""Reviewers: a second pass over people's ratings, one leased at a time (docs/contract.md,
"Quality: reviews of ratings").

GET shows the rating this reviewer holds (a new one if they hold none): the turn it rates, who
rated it, each of its rows' scores and, for a rating on a rubric, every answer, with its comment
and correction. POST accepts it, rejects it with a reason, or gives it back; then the next one
(a redirect to this page). Without script the form still works: two submit buttons named
`decision` (accept, reject); static/feedback/review.js makes them a choice by keys (A, R) or
taps, sent by Enter or a Submit button.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from pydantic import ValidationError

from core.accounts.roles import Action
from core.form_words import in_form_words
from core.projects.selection import project_pk
from core.web import page, requires, when
from feedback.exports import as_items, stored_turn
from feedback.models import FEEDBACK_ID_SEPARATOR
from feedback.pages.guidelines import question_labels
from feedback.pages.rating import lease_clock
from feedback.pages.rubric_form import step_kinds_asked
from feedback.reviews.decisions import ReviewRequest, review_record
from feedback.reviews.models import REASON_LENGTH, Decision
from feedback.reviews.queue import review_next, review_release
from feedback.sessions import SESSION_STEP
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from collections.abc import Mapping

    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.answers import StoredRatedTurn
    from feedback.models import Feedback
    from feedback.reviews.queue import ReviewHeld

FIELDS = ("decision", "reason")  # what a refusal may name beside its field
# What the lease clock (hold.js) calls what is held, and what a late submit sends.
REVIEW_HOLD = {"lease_unit": "rating", "lease_act": "review"}
ANSWER_LENGTH = 400  # characters of one answer shown (a text answer may be long)

CHOOSE = "Choose Accept or Reject."
NOT_STORED = "Your review was not stored: {why}"
MARKED_BELOW = "correct what is marked below."
NEXT_ONE = " Here is the next rating to review."
ACCEPTED = "Accepted: the rating stays counted."
REJECTED = "Rejected: the rating no longer counts, and its turn needs a rating again."
RELEASED = "The rating is back in the review queue for someone else."
UNREADABLE = "the rated turn stored with this rating cannot be read"


@dataclass(frozen=True)
class Sent:
    """What the reviewer sent, shown again beside its refusal."""

    feedback_id: str = ""
    decision: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Refused:
    """Why a review was not stored: a sentence above the form, and each field's words."""

    said: str
    beside: Mapping[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Score:
    """One row of the rating: the question it answers (a rubric's), its dimension, its score."""

    key: str  # the rubric question's ("" for a feedback of the default form)
    question: str
    dimension: str
    score: float
    polarity: str
    confidence: float


@dataclass(frozen=True)
class Answered:
    """One answer of a rating on a rubric, as words."""

    key: str
    question: str
    answer: str


@dataclass(frozen=True)
class RatedTurn:
    """The turn the rating rates, as the page shows it; `note` says why it is missing."""

    prompt: str = ""
    response: str = ""
    model: str = ""
    found: bool = False
    note: str = ""


@requires(Action.REVIEW_RATINGS)
def review(request: HttpRequest, principal: Principal) -> HttpResponse:
    """GET: the rating this reviewer holds (a new one if they hold none); POST: accept it,
    reject it with a reason or give it back, then the next one (a redirect to this page)."""
    if request.method == "POST":
        return _review_post(request, principal)
    return _review_page(request, principal, review_next(principal))


def _review_post(request: HttpRequest, principal: Principal) -> HttpResponse:
    do = request.POST.get("do", "decide")
    if do == "release":
        review_release(principal)
        messages.info(request, RELEASED)
        return redirect("portal:home")  # "Release and stop": the page would lease it again
    if do != "decide":
        messages.error(request, f"Unknown action {do!r}.")
        return redirect("portal:review")
    sent = Sent(
        request.POST.get("feedback_id", ""),
        request.POST.get("decision", ""),
        request.POST.get("reason", ""),
    )
    try:
        body = ReviewRequest.model_validate(
            {"feedback_id": sent.feedback_id, "decision": sent.decision, "reason": sent.reason}
        )
    except ValidationError as exc:
        return _refused(request, principal, sent, invalid_from(exc))
    try:
        reviewed = review_record(principal=principal, request=body)
    except LearnError as error:
        return _refused(request, principal, sent, error)
    messages.success(request, ACCEPTED if reviewed.decision == Decision.ACCEPTED else REJECTED)
    return redirect("portal:review")


def _field_named(loc: list[Any]) -> str:
    return next((part for part in loc if isinstance(part, str) and part in FIELDS), "")


def _beside(name: str, message: str) -> str:
    """A refusal's words beside the field it names, as a sentence."""
    if name == "decision":
        return CHOOSE
    words = in_form_words(message).strip()
    words = words[:1].upper() + words[1:]
    return words if words.endswith((".", "?", "!")) else f"{words}."


def _refused(
    request: HttpRequest, principal: Principal, sent: Sent, error: LearnError
) -> HttpResponse:
    """The page again, at the refusal's status, nothing stored: the same rating with what was
    sent when the refusal names a field of the form and the rating is still this reviewer's,
    else the refusal in a sentence above their next one (or none)."""
    beside: dict[str, list[str]] = {}
    for item in error.details:
        name = _field_named(item.get("loc", []))
        if name:
            beside.setdefault(name, []).append(_beside(name, str(item.get("msg", ""))))
    held = review_next(principal)
    same = held is not None and sent.feedback_id in {row.feedback_id for row in held.rows}
    if same and beside and error.code == ErrorCode.INVALID:
        named = sum(len(words) for words in beside.values()) == len(error.details)
        refused = Refused(NOT_STORED.format(why=MARKED_BELOW if named else error.message), beside)
        return _review_page(
            request, principal, held, sent=sent, refused=refused, status=error.http_status
        )
    said = NOT_STORED.format(why=error.message) + (NEXT_ONE if held is not None else "")
    return _review_page(request, principal, held, refusal=said, status=error.http_status)


def _review_page(
    request: HttpRequest,
    principal: Principal,
    held: ReviewHeld | None,
    *,
    sent: Sent | None = None,
    refused: Refused | None = None,
    refusal: str = "",
    status: int = 200,
) -> HttpResponse:
    context: dict[str, Any] = {
        "held": held is not None,
        "refusal": refusal,
        "review_url": reverse("portal:review"),
        # The queue's modes (partials/queue_modes.html), this one current.
        "review_mode": True,
        "may_review": True,
        "asked_step_kinds": step_kinds_asked(principal.project),
    }
    if held is not None:
        context |= (
            _reviewing(held, principal, sent or Sent(), refused)
            | lease_clock(held.expires, time.time())
            | REVIEW_HOLD
        )
    return page(request, "feedback/review.html", context, status=status)


def _reviewing(
    held: ReviewHeld, principal: Principal, sent: Sent, refused: Refused | None
) -> dict[str, Any]:
    rows = held.rows
    first = rows[0]
    rated = _rated_turn(rows)
    rubric = held.answers is not None
    labels = question_labels(project_pk(principal.project)) if rubric else {}
    corrected = next((row for row in rows if row.correction), None)
    return {
        "feedback_id": first.feedback_id,
        "annotator": first.annotator_id,
        "component": first.component_name,
        "correlation_id": first.correlation_id,
        "session_id": first.session_id,
        "rated_part": first.rated_part,
        "rated_when": when(first.ts),
        "rated": rated,
        "rubric": rubric,
        "scores": [_score(row, labels, rubric=rubric) for row in rows],
        "answers": _answers(held.answers or {}, labels, rated.response),
        "comment": next((row.comment for row in rows if row.comment), ""),
        "correction": corrected.correction if corrected is not None else "",
        "replaces": _replaced(corrected, rated.response) if corrected is not None else "",
        "decision": sent.decision if sent.decision in ("accept", "reject") else "",
        "reason": sent.reason,
        "reason_length": REASON_LENGTH,
        "refused": refused,
    }


def _rated_turn(rows: list[Feedback]) -> RatedTurn:
    """The turn the rows rate (feedback.exports.as_items): the one stored with a row, or else
    its project's queued turn; a stored one that cannot be read is passed over."""
    unreadable = False
    for row, item in zip(rows, as_items(rows), strict=True):
        unreadable = unreadable or (bool(row.rated_turn) and stored_turn(row) is None)
        if item.rated_turn is not None:
            return _shown_turn(item.rated_turn, unreadable=unreadable)
    if unreadable:
        return RatedTurn(
            note=f"The turn is not shown: {UNREADABLE}, and no queued turn has its id."
        )
    if rows[0].step_id == SESSION_STEP:
        return RatedTurn(note="This rating is of a whole session: it rates no one response.")
    return RatedTurn(note="No turn is stored with this rating, and none is queued with its id.")


def _shown_turn(turn: StoredRatedTurn, *, unreadable: bool) -> RatedTurn:
    note = f"Shown from the queued turn: {UNREADABLE}." if unreadable else ""
    return RatedTurn(turn.prompt, turn.response, turn.model, found=True, note=note)


def _question_key(row: Feedback) -> str:
    """The rubric question a rating's row scores (`<rating_id>.<key>`)."""
    _, separator, key = row.feedback_id.rpartition(FEEDBACK_ID_SEPARATOR)
    return key if separator else ""


def _score(row: Feedback, labels: Mapping[str, str], *, rubric: bool) -> Score:
    key = _question_key(row) if rubric else ""
    return Score(key, labels.get(key, key), row.dimension, row.score, row.polarity, row.confidence)


def _answers(
    answers: Mapping[str, Any], labels: Mapping[str, str], response: str
) -> list[Answered]:
    """Every answer, in the rubric's order (then any of a question it no longer has), as words."""
    keys = [key for key in labels if key in answers]
    keys += sorted(str(key) for key in answers if key not in labels)
    return [
        Answered(key, labels.get(key, key), _cut(_answer_words(answers.get(key), response)))
        for key in keys
    ]


def _answer_words(value: Any, response: str) -> str:
    """An answer as a reviewer reads it, whatever was stored: yes or no, a number, the
    options, each span with the text it marks, or else its JSON."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return f"{value:g}" if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(_is_span(each) for each in value) and value:
        return "; ".join(_span_words(each, response) for each in value)
    if isinstance(value, list) and all(isinstance(each, str | int | float) for each in value):
        return ", ".join(_answer_words(each, response) for each in value) or "none"
    return json.dumps(value, ensure_ascii=False, default=str)


def _is_span(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("start"), int)
        and isinstance(value.get("end"), int)
        and "label" in value
    )


def _span_words(span: dict[str, Any], response: str) -> str:
    start, end = span["start"], span["end"]
    marked = response[start:end] if 0 <= start <= end <= len(response) else ""
    where = f"“{_cut(marked, 80)}”" if marked else f"characters {start} to {end}"
    return f"{span['label']}: {where}"


def _replaced(row: Feedback, response: str) -> str:
    """The part of the response a correction replaces, if it names a span within it."""
    start, end = row.span_start, row.span_end
    if start is None or end is None or not 0 <= start <= end <= len(response):
        return ""
    return response[start:end]


def _cut(text: str, length: int = ANSWER_LENGTH) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"
