"""Annotators: judging comparisons, one leased at a time (docs/contract.md, "Comparisons").

Two candidates are shown side by side (A | B) with a five-point preference; three and more are
ranked, best first. The candidates come in the order `comparison_next` gives this person, and
nothing on the page names the component or the model that gave them (the judging is blind).
Without script the form still works: radios for a preference, a rank select per candidate for
a ranking (static/feedback/compare.js replaces them with a list reordered by keys or by drag,
and a hidden `ranking` of the ids best first).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from string import ascii_uppercase
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from pydantic import ValidationError

from core.accounts.roles import Action
from core.form_words import in_form_words
from core.projects.selection import project_pk
from core.web import page, requires
from feedback.comparisons.judgments import JudgmentRequest, judgment_record
from feedback.comparisons.queue import comparison_next, comparison_release, comparison_skip
from feedback.pages.rating import lease_clock
from feedback.pages.rubric_form import (
    QuestionField,
    answers_sent,
    candidate_fields,
    candidate_prefix,
    candidate_questions,
    candidates_sent,
    step_kinds_asked,
)
from feedback.services.rubrics import rubric_current
from learnportal_protocol.errors import ErrorCode, LearnError, detail, invalid
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from collections.abc import Mapping

    from django.http import HttpRequest, HttpResponse, QueryDict

    from core.accounts.principals import Principal
    from feedback.comparisons.queue import ComparisonHeld
    from feedback.rubrics.questions import Rubric

# The five points, in the order shown and keyed 1-5: read in the order shown to the person.
PREFERENCES = (
    (-2, "A much better"),
    (-1, "A better"),
    (0, "Tie"),
    (1, "B better"),
    (2, "B much better"),
)
RANKING_FIELD = "ranking"  # the ids best first, comma-separated (compare.js fills it)
RANK_PREFIX = "rank-"  # `rank-<candidate id>`: its rank, 1 best (the selects without script)
FIELDS = ("preference", "ranking", "rationale")  # what a refusal may name beside its field
# What the lease clock (hold.js) calls what is held, and what a late submit sends.
COMPARISON_HOLD = {"lease_unit": "comparison", "lease_act": "judgment"}
EXCERPT = 120  # characters of a candidate's response in the ranking list

CHOOSE = "Choose which response is better (keys 1 to 5), or Tie."
RANK_EACH = "Give each response its own rank, 1 to {n}: 1 is the best."
NOT_A_COMPARISON = "The comparison to judge, skip or give back is missing or not a number."
NOT_STORED = "Your judgment was not stored: {why}"
MARKED_BELOW = "correct what is marked below."
NEXT_ONE = " Here is your next comparison."
STORED = "Your judgment is stored."
SKIPPED = "Skipped: you will not be offered that comparison again."
RELEASED = "The comparison is back in the queue for someone else."


@dataclass(frozen=True)
class Sent:
    """What the person sent, shown again beside its refusal."""

    preference: str = ""
    ranking: tuple[str, ...] = ()  # from the hidden field (compare.js)
    ranks: Mapping[str, str] = field(default_factory=dict)  # candidate id: select's value
    rationale: str = ""
    # Each candidate's answers to the rubric's questions of candidates, as the API takes them.
    answers: Mapping[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Refused:
    """Why a judgment was not stored: a sentence above the form, and each field it names,
    marked (and, for what the request model refused, its words beside it)."""

    said: str
    marked: frozenset[str] = frozenset()
    beside: Mapping[str, list[str]] = field(default_factory=dict)
    answers: Mapping[str, str] = field(default_factory=dict)  # a candidate's field: why


@dataclass(frozen=True)
class Shown:
    """A candidate as the page shows it: a letter of its place in this person's order."""

    candidate_id: str
    label: str
    response: str
    rank: str = ""  # the no-script select's value sent back
    fields: list[QuestionField] = field(default_factory=list)  # the rubric's of candidates


@requires(Action.QUEUE)
def compare(request: HttpRequest, principal: Principal) -> HttpResponse:
    """GET: the comparison leased to this person (a new one if they hold none); POST: judge,
    skip or give it back, then the next one at once (a redirect to this page)."""
    if request.method == "POST":
        return _compare_post(request, principal)
    return _compare_page(request, principal, comparison_next(principal))


def _compare_post(request: HttpRequest, principal: Principal) -> HttpResponse:
    do = request.POST.get("do", "judge")
    try:
        comparison = _comparison_pk(request.POST.get("comparison", ""))
    except LearnError as error:
        if do == "judge":
            return _refused(request, principal, None, Sent(), error)
        messages.error(request, error.message)
        return redirect("portal:compare")
    if do == "judge":
        return _judge(request, principal, comparison)
    try:
        if do == "skip":
            comparison_skip(principal, comparison)
            messages.info(request, SKIPPED)
        elif do == "release":
            comparison_release(principal, comparison)
            messages.info(request, RELEASED)
            return redirect("portal:home")
        else:
            messages.error(request, f"Unknown action {do!r}.")
    except LearnError as error:
        messages.error(request, error.message)
    return redirect("portal:compare")


def _comparison_pk(sent: str) -> int:
    if not (sent.isascii() and sent.isdigit()):
        raise invalid(NOT_A_COMPARISON, [detail(["comparison"], "missing or not a number")])
    return int(sent)


def _judge(request: HttpRequest, principal: Principal, comparison: int) -> HttpResponse:
    sent = _sent(request.POST, _rubric(principal))
    try:
        judgment = _judgment_of(sent)
    except ValidationError as exc:
        error = invalid_from(exc)
        beside: dict[str, list[str]] = {}
        for item in error.details:
            name = _field_named(item.get("loc", []))
            if name:
                beside.setdefault(name, []).append(in_form_words(item["msg"]))
        refused = Refused(NOT_STORED.format(why=MARKED_BELOW), frozenset(beside), beside)
        return _refused(request, principal, comparison, sent, error, refused)
    except LearnError as error:
        return _refused(request, principal, comparison, sent, error)
    try:
        judgment_record(principal=principal, comparison=comparison, judgment=judgment)
    except LearnError as error:
        return _refused(request, principal, comparison, sent, error)
    messages.success(request, STORED)
    return redirect("portal:compare")


def _sent(post: QueryDict, rubric: Rubric) -> Sent:
    ranking = tuple(part for part in post.get(RANKING_FIELD, "").split(",") if part)
    ranks = {
        name.removeprefix(RANK_PREFIX): post.get(name, "")
        for name in post
        if name.startswith(RANK_PREFIX)
    }
    questions = candidate_questions(rubric)
    answers = {
        candidate: answers_sent(
            rubric, post, prefix=candidate_prefix(candidate), questions=questions
        )
        for candidate in candidates_sent(post)
    }
    return Sent(post.get("preference", ""), ranking, ranks, post.get("rationale", ""), answers)


def _rubric(principal: Principal) -> Rubric:
    return rubric_current(project_pk(principal.project)).rubric


def _judgment_of(sent: Sent) -> JudgmentRequest:
    """The request the API would be sent for this form; `invalid` (a LearnError) for what the
    form itself cannot make one of, a ValidationError for what the request model refuses."""
    body: dict[str, Any] = {"rationale": sent.rationale}
    if sent.answers:
        body["answers"] = dict(sent.answers)
    if sent.preference:
        try:
            body["preference"] = int(sent.preference)
        except ValueError:
            raise invalid(CHOOSE, [detail(["preference"], CHOOSE)]) from None
    if sent.ranking:
        body["ranking"] = list(sent.ranking)
    elif sent.ranks:
        body["ranking"] = _ranking_of_ranks(sent.ranks)
    if "preference" not in body and "ranking" not in body:
        raise invalid(CHOOSE, [detail(["preference"], CHOOSE)])
    return JudgmentRequest.model_validate(body)


def _ranking_of_ranks(ranks: Mapping[str, str]) -> list[str]:
    """The ids best first, from a rank (1..n) each: every rank once, or `invalid`."""
    n = len(ranks)
    said = RANK_EACH.format(n=n)
    places = {value for value in ranks.values()}
    if len(places) != n or places != {str(place) for place in range(1, n + 1)}:
        raise invalid(said, [detail(["ranking"], said)])
    return sorted(ranks, key=lambda candidate: int(ranks[candidate]))


def _field_named(loc: list[Any]) -> str:
    return next((part for part in loc if isinstance(part, str) and part in FIELDS), "")


def _refused(
    request: HttpRequest,
    principal: Principal,
    comparison: int | None,
    sent: Sent,
    error: LearnError,
    refused: Refused | None = None,
) -> HttpResponse:
    """The page again, at the refusal's status, nothing stored: the same comparison with what
    was sent when it is still this person's to judge, else their next one (or none)."""
    if refused is None:
        named = {_field_named(item.get("loc", [])) for item in error.details} - {""}
        answers = {
            candidate_prefix(str(loc[1])) + str(loc[2]): in_form_words(str(item["msg"]))
            for item in error.details
            if len(loc := item.get("loc", [])) == 3 and loc[0] == "answers"
        }
        said = MARKED_BELOW if answers and len(answers) == len(error.details) else error.message
        refused = Refused(NOT_STORED.format(why=said), frozenset(named), answers=answers)
    held = comparison_next(principal)
    if held is not None and held.comparison.pk == comparison and error.code == ErrorCode.INVALID:
        return _compare_page(
            request, principal, held, sent=sent, refused=refused, status=error.http_status
        )
    said = refused.said + (NEXT_ONE if held is not None else "")
    return _compare_page(request, principal, held, refusal=said, status=error.http_status)


def _compare_page(
    request: HttpRequest,
    principal: Principal,
    held: ComparisonHeld | None,
    *,
    sent: Sent | None = None,
    refused: Refused | None = None,
    refusal: str = "",
    status: int = 200,
) -> HttpResponse:
    context: dict[str, Any] = {
        "held": held,
        "refusal": refusal,
        "compare_url": reverse("portal:compare"),
        # The queue's modes (partials/queue_modes.html), this one current.
        "compare_mode": True,
        "asked_step_kinds": step_kinds_asked(principal.project),
        "may_review": principal.may(Action.REVIEW_RATINGS),
    }
    if held is not None:
        context |= (
            _judging(held, _rubric(principal), sent or Sent(), refused)
            | lease_clock(held.expires, time.time())
            | COMPARISON_HOLD
        )
    return page(request, "feedback/compare.html", context, status=status)


def _judging(
    held: ComparisonHeld, rubric: Rubric, sent: Sent, refused: Refused | None
) -> dict[str, Any]:
    questions = candidate_questions(rubric)
    errors = dict(refused.answers) if refused is not None else {}
    shown = [
        Shown(
            candidate,
            _label(i),
            response,
            sent.ranks.get(candidate, ""),
            candidate_fields(questions, candidate, sent.answers.get(candidate, {}), errors),
        )
        for i, (candidate, response) in enumerate(held.shown)
    ]
    by_id = {candidate.candidate_id: candidate for candidate in shown}
    # The ranking list in the order sent back, when it was one of these candidates each once.
    ranked = shown
    placed = sorted(sent.ranking) == sorted(by_id)
    if placed:
        ranked = [by_id[candidate] for candidate in sent.ranking]
    return {
        "candidates": shown,
        "two": len(shown) == 2,
        "preferences": [
            {"value": str(value), "text": text, "checked": str(value) == sent.preference}
            for value, text in PREFERENCES
        ],
        "ranked": ranked,
        "ranking_placed": placed,  # the person's own order, sent back with a refusal
        "places": [str(place) for place in range(1, len(shown) + 1)],
        "excerpt": EXCERPT,
        "rationale": sent.rationale,
        "refused": refused,
    }


def _label(place: int) -> str:
    """A, B, C ... for the places shown; past Z, numbers."""
    return ascii_uppercase[place] if place < len(ascii_uppercase) else str(place + 1)
