"""Reviewers: a second pass over people's ratings, one leased at a time (docs/contract.md,
"Quality: reviews of ratings").

GET shows the rating this reviewer holds (a new one if they hold none): the turn it rates, who
rated it, each of its rows' scores and, for a rating on a rubric, every answer, with its comment
and correction. POST accepts it, rejects it with a reason, amends it (the reviewer's own answers
to the project's current rubric take its place), or gives it back; then the next one (a
redirect to this page). The amendment's form is the rating page's (feedback.pages.rubric_form),
of the unit the rating rates, filled in with the rating's answers when they were given on the
current rubric; its questions' hotkeys are off here, as a rubric may give a question A, R or E.
Without script the form still works: three submit buttons named `decision` (accept, reject,
amend), the amendment's questions in a <details>; static/feedback/review.js makes them a choice
by keys (A, R, E) or taps, sent by Enter or a Submit button.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import orjson
from django.contrib import messages
from django.http import QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from pydantic import ValidationError

from core.accounts.roles import Action
from core.form_words import in_form_words
from core.projects.selection import project_pk
from core.web import page, requires, when
from feedback.exports import as_items, stored_turn
from feedback.models import FEEDBACK_ID_SEPARATOR, Rating, TurnStep
from feedback.pages.guidelines import question_labels
from feedback.pages.rating import lease_clock
from feedback.pages.rubric_form import (
    NO,
    PREFIX,
    YES,
    RubricForm,
    answers_sent,
    rubric_form_of,
    show_rubric_refusal,
    step_kinds_asked,
)
from feedback.reviews.decisions import DECISIONS, ReviewRequest, review_record
from feedback.reviews.models import REASON_LENGTH, Decision
from feedback.reviews.queue import review_next, review_release
from feedback.rubrics.versions import VERSION_DIGITS
from feedback.services.rubrics import StoredRubric, rubric_current
from feedback.sessions import SESSION_STEP
from learnportal_protocol.errors import LearnError
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from collections.abc import Mapping

    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.answers import StoredRatedTurn
    from feedback.models import Feedback
    from feedback.reviews.queue import ReviewHeld

# What a refusal may name beside its field (the amendment's remarks too; its answers are put
# beside their questions by feedback.pages.rubric_form).
FIELDS = ("decision", "reason", "comment", "correction")
AMEND = "amend"  # the decision whose form carries answers and remarks
ANSWERS = "answers"  # the first part of a refusal's `loc` that names an amendment's answer
# What the lease clock (hold.js) calls what is held, and what a late submit sends.
REVIEW_HOLD = {"lease_unit": "rating", "lease_act": "review"}
ANSWER_LENGTH = 400  # characters of one answer shown (a text answer may be long)

CHOOSE = "Choose Accept, Reject or Amend."
NOT_STORED = "Your review was not stored: {why}"
MARKED_BELOW = "correct what is marked below."
NEXT_ONE = " Here is the next rating to review."
ACCEPTED = "Accepted: the rating stays counted."
REJECTED = "Rejected: the rating no longer counts, and its turn needs a rating again."
AMENDED = "Amended: your rating takes its place; theirs no longer counts."
DONE = {
    Decision.ACCEPTED.value: ACCEPTED,
    Decision.REJECTED.value: REJECTED,
    Decision.AMENDED.value: AMENDED,
}
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
class Amending:
    """The amendment's form: the current rubric's questions of what the rating rates (None: its
    step is not stored, so nothing asks them), and whether the rating's answers fill it in."""

    form: RubricForm | None
    unit: str  # what the rating rates, in words: "turn", "session", "tool step"
    prefilled: bool = False


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
        body = ReviewRequest.model_validate(_request_fields(principal, sent, request.POST))
    except ValidationError as exc:
        return _refused(request, principal, sent, invalid_from(exc))
    try:
        reviewed = review_record(principal=principal, request=body)
    except LearnError as error:
        return _refused(request, principal, sent, error)
    messages.success(request, DONE[reviewed.decision])
    return redirect("portal:review")


def _request_fields(principal: Principal, sent: Sent, posted: QueryDict) -> dict[str, Any]:
    """What the form sent, as `POST /api/reviews/` takes it: an amendment's answers read as the
    rating page reads its form's, on the rubric the project rates on now."""
    fields = {"feedback_id": sent.feedback_id, "decision": sent.decision, "reason": sent.reason}
    if sent.decision != AMEND:
        return fields  # the amendment's fields are on the page, filled in, whatever is chosen
    stored = rubric_current(project_pk(principal.project))
    return fields | {
        "answers": answers_sent(stored.rubric, posted),
        "comment": posted.get("comment", ""),
        "correction": posted.get("correction", ""),
        "rubric_version": _version_sent(posted.get("rubric_version", "")),
    }


def _version_sent(raw: str) -> int | str | None:
    """The rubric version the amendment's form was drawn from (its hidden field): a number, or
    what was sent, for the request to refuse; None if it sent none."""
    if raw == "":
        return None
    return int(raw) if raw.isdecimal() and len(raw) <= VERSION_DIGITS else raw


def _field_named(loc: list[Any]) -> str:
    if loc[:1] == [ANSWERS]:
        return ""  # an answer's, beside its question, whatever the question's key
    return next((part for part in loc if isinstance(part, str) and part in FIELDS), "")


def _beside(name: str, message: str) -> str:
    """A refusal's words beside the field it names, as a sentence."""
    if name == "decision":
        return CHOOSE
    words = in_form_words(message).strip()
    return _ended(words[:1].upper() + words[1:])


def _refused(
    request: HttpRequest, principal: Principal, sent: Sent, error: LearnError
) -> HttpResponse:
    """The page again, at the refusal's status, nothing stored: the same rating with what was
    sent while it is still this reviewer's, each refusal beside the field it names and the rest
    in a sentence above the form; else the refusal in a sentence above their next one (or
    none)."""
    held = review_next(principal)
    if held is None or sent.feedback_id not in {row.feedback_id for row in held.rows}:
        said = NOT_STORED.format(why=error.message) + (NEXT_ONE if held is not None else "")
        return _review_page(request, principal, held, refusal=said, status=error.http_status)
    amending = _amending(principal, held, request.POST if sent.decision == AMEND else None)
    if amending.form is not None and sent.decision == AMEND:
        show_rubric_refusal(amending.form, error)  # each answer's words beside its question
    return _review_page(
        request,
        principal,
        held,
        sent=sent,
        refused=_refusal_shown(error, amending.form if sent.decision == AMEND else None),
        amending=amending,
        status=error.http_status,
    )


def _refusal_shown(error: LearnError, form: RubricForm | None) -> Refused:
    """The refusal as the form shows it: each detail beside the field it names (an answer's
    beside its question of the amendment's `form`), the rest in the sentence above."""
    beside: dict[str, list[str]] = {}
    unplaced: list[str] = []
    for item in error.details:
        loc, message = item.get("loc", []), str(item.get("msg", ""))
        name = _field_named(loc)
        if name:
            beside.setdefault(name, []).append(_beside(name, message))
        elif not _beside_question(loc, form):
            unplaced.append(in_form_words(message))
    why = "; ".join(unplaced) if unplaced else error.message
    if error.details and len(unplaced) < len(error.details):
        why = f"{why}; {MARKED_BELOW}" if unplaced else MARKED_BELOW
    return Refused(NOT_STORED.format(why=_ended(why)), beside)


def _ended(words: str) -> str:
    return words if words.endswith((".", "?", "!")) else f"{words}."


def _beside_question(loc: list[Any], form: RubricForm | None) -> bool:
    """Whether the refusal at `loc` is shown beside a question of the amendment's form."""
    if form is None or len(loc) < 2 or loc[0] != ANSWERS:
        return False
    return any(each.question.key == loc[1] for each in form.fields)


def _review_page(
    request: HttpRequest,
    principal: Principal,
    held: ReviewHeld | None,
    *,
    sent: Sent | None = None,
    refused: Refused | None = None,
    amending: Amending | None = None,
    refusal: str = "",
    status: int = 200,
) -> HttpResponse:
    context: dict[str, Any] = {
        "held": held is not None,
        "refusal": refusal,
        "review_url": reverse("portal:review"),
        "reviews_url": reverse("portal:reviews"),
        # The queue's modes (partials/queue_modes.html), this one current.
        "review_mode": True,
        "may_review": True,
        "asked_step_kinds": step_kinds_asked(principal.project),
    }
    if held is not None:
        amending = amending or _amending(principal, held, None)
        context |= (
            _reviewing(held, principal, sent or Sent(), refused, amending)
            | lease_clock(held.expires, time.time())
            | REVIEW_HOLD
        )
    return page(request, "feedback/review.html", context, status=status)


def _reviewing(
    held: ReviewHeld,
    principal: Principal,
    sent: Sent,
    refused: Refused | None,
    amending: Amending,
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
        "answers": answers_in_words(held.answers or {}, labels, rated.response),
        "comment": next((row.comment for row in rows if row.comment), ""),
        "correction": corrected.correction if corrected is not None else "",
        "replaces": _replaced(corrected, rated.response) if corrected is not None else "",
        "decision": sent.decision if sent.decision in DECISIONS else "",
        "reason": sent.reason,
        "reason_length": REASON_LENGTH,
        "refused": refused,
        "amend": amending.form,
        "amend_unit": amending.unit,
        "amend_prefilled": amending.prefilled,
    }


# ---- The amendment's form ----


def _amending(principal: Principal, held: ReviewHeld, posted: QueryDict | None) -> Amending:
    """The current rubric's form of what the held rating rates: with what was `posted`, or else
    filled in with the rating's answers when they were given on this version of it."""
    first = held.rows[0]
    project = project_pk(principal.project)
    stored = rubric_current(project)
    session = first.step_id == SESSION_STEP
    if not first.step_id or session:
        step, unit = None, "session" if session else "turn"
    else:
        step = TurnStep.objects.filter(
            turn__project_id=project,
            turn__correlation_id=first.correlation_id,
            step_id=first.step_id,
        ).first()
        if step is None:
            return Amending(None, "step")
        unit = f"{step.kind} step"
    prefill = None if posted is not None else _answers_current(held, project, stored)
    sent = posted if posted is not None else _as_posted(prefill or {})
    form = rubric_form_of(stored, sent, step, session=session)
    return Amending(_without_hotkeys(form), unit, prefilled=bool(prefill))


def _answers_current(held: ReviewHeld, project: int, stored: StoredRubric) -> dict[str, Any] | None:
    """The held rating's answers if it was given on the rubric's current version (None for a
    rating of the default form, which stores none)."""
    if held.answers is None:
        return None
    rating_id = held.rows[0].feedback_id.partition(FEEDBACK_ID_SEPARATOR)[0]
    version = (
        Rating.objects.filter(project_id=project, rating_id=rating_id)
        .values_list("rubric_version", flat=True)
        .first()
    )
    return held.answers if version == stored.version else None


def _as_posted(answers: Mapping[str, Any]) -> QueryDict:
    """Stored answers as the rating form posts them (feedback.pages.rubric_form reads them
    back): yes or no, each of several options, a span list's JSON, a number, the text."""
    posted = QueryDict(mutable=True)
    for key, value in answers.items():
        name = PREFIX + str(key)
        if isinstance(value, bool):
            posted[name] = YES if value else NO
        elif isinstance(value, list) and all(isinstance(each, str) for each in value):
            posted.setlist(name, value)
        elif isinstance(value, list | dict):
            posted[name] = orjson.dumps(value).decode()
        elif isinstance(value, int | float):
            posted[name] = f"{value:g}"
        else:
            posted[name] = str(value)
    return posted


def _without_hotkeys(form: RubricForm) -> RubricForm:
    """The form with no question's keys: A, R, E and Enter are the review's on this page."""
    for each in form.fields:
        each.hotkeys = ""
        each.choices = [replace(choice, hotkey="") for choice in each.choices]
    return form


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


def answers_in_words(
    answers: Mapping[str, Any], labels: Mapping[str, str], response: str = ""
) -> list[Answered]:
    """Every answer, in the rubric's order (then any of a question it no longer has), as words
    (a span as the text it marks in `response`, else where it is)."""
    keys = [key for key in labels if key in answers]
    keys += sorted(str(key) for key in answers if key not in labels)
    return [
        Answered(key, labels.get(key, key), shortened(_answer_words(answers.get(key), response)))
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
    where = f"“{shortened(marked, 80)}”" if marked else f"characters {start} to {end}"
    return f"{span['label']}: {where}"


def _replaced(row: Feedback, response: str) -> str:
    """The part of the response a correction replaces, if it names a span within it."""
    start, end = row.span_start, row.span_end
    if start is None or end is None or not 0 <= start <= end <= len(response):
        return ""
    return response[start:end]


def shortened(text: str, length: int = ANSWER_LENGTH) -> str:
    """`text`, or its first `length` characters with an ellipsis."""
    return text if len(text) <= length else text[: length - 1] + "…"
