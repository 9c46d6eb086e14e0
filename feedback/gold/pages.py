"""Managers and site admins: the gold page (/gold/) and the gold card of a turn's page.

The gold page shows the project's gold settings, each person's accuracy on gold items with its
interval (a paused queue with a Resume), and the gold items, newest first, a page at a time
(the cursor signed as `GET /api/gold/` signs it), each with its known answers in words and a
Remove. Its buttons post to the page itself, which redirects back with what came of it.

The gold card (templates/feedback/partials/gold_card.html, on the turn's page: feedback.pages.
explorer) marks the turn as gold with its known answers, or takes the mark off: its questions
are the rating form's (feedback.pages.rubric_form, partials/question_field.html) of the current
rubric's questions a gold answer can match, none required, filled in with the known answers
that still fit. They are a candidate's fields (a prefix of their own, no hotkeys: the turn's page
binds none), and a question of one choice has a "Not known" choice too, since a radio once
chosen cannot be cleared. A refusal re-renders the turn's page with each reason beside its
question and what was sent kept.

Nobody else sees either: the answers are kept from the people they measure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.contrib import messages
from django.db.models import Count
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from pydantic import Field

from core.accounts.roles import Action
from core.inputs import (
    QueryModel,
    QueryText,
    id_of_signed,
    page_query,
    posted_id,
    signed_id,
)
from core.projects.rules import gold_rules
from core.projects.selection import project_pk
from core.web import page, requires, when
from feedback.comparisons.models import Candidate
from feedback.gold.api import CURSOR_SALT
from feedback.gold.comparisons import gold_comparison_remove
from feedback.gold.marking import GRADABLE, GoldRequest, gold_remove, gold_set
from feedback.gold.models import GoldComparison, GoldItem
from feedback.gold.reads import gold_items, gold_people, gold_resume
from feedback.pages.guidelines import question_labels
from feedback.pages.reviews import answers_in_words
from feedback.pages.rubric_form import (
    Choice,
    QuestionField,
    RubricForm,
    answers_sent,
    candidate_fields,
    candidate_prefix,
    show_rubric_refusal,
)
from feedback.rubrics.answers import answers_clean
from feedback.selectors.turns import turn_in_project
from feedback.services.rubrics import rubric_current
from learnportal_protocol.errors import LearnError

if TYPE_CHECKING:
    from datetime import datetime

    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.gold.reads import PersonAccuracy
    from feedback.models import Turn
    from feedback.rubrics.questions import AnyQuestion, Rubric
    from feedback.services.rubrics import StoredRubric

PAGE_SIZE = 20
CURSOR_LENGTH = 200  # as GET /api/gold/ takes one
NAME_SHOWN = 150  # characters of a posted username a message echoes (a username's most)
GOLD_FIELDS = "gold"  # the card's fields are named `c-gold-<key>` (rubric_form.candidate_prefix)
PREFIX = candidate_prefix(GOLD_FIELDS)
NOT_KNOWN = "Not known"
# Answers stored as anything but an object are shown under this key, which no question can
# have (a key is a-z first): so they are listed, as answers that do not fit the rubric.
NOT_BY_QUESTION = "(not by question)"
RESUME, REMOVE = "resume", "remove"  # what a button of the gold page posts as `do`
REMOVE_COMPARISON = "remove-comparison"
GOLD_COMPARISONS_SHOWN = 50  # the newest; the API lists them all
RESPONSE_SHOWN = 160  # characters of the best candidate's answer a row shows

NO_SUCH_PAGE = "No such page: this link names no page of the gold items; showing the newest."
NO_SUCH_TURN = "No such turn: nothing was removed."
NO_SUCH_COMPARISON = "No such gold comparison: nothing was removed."
SAVED = "Saved {turn} as a gold item: {count} known answer{s}."
REMOVED = "{turn} is no gold item now: the results people had on it went with it."
RESUMED = "Resumed the queue of {name}: only gold items they rate from now on judge them again."


class GoldPageQuery(QueryModel):
    cursor: QueryText = Field(default="", max_length=CURSOR_LENGTH)


@dataclass(frozen=True)
class KnownAnswer:
    question: str
    answer: str
    fits: bool  # whether the current rubric takes it: one that no longer fits is not scored


@dataclass(frozen=True)
class PersonRow:
    person: PersonAccuracy
    accuracy: str  # "72% (55-85%)" with an en dash, or "—" while nothing was compared
    paused_at: str  # the accuracy that paused them, "40%"; "" while their queue is open
    paused_when: datetime | None


@dataclass(frozen=True)
class ItemRow:
    gold: GoldItem
    turn_url: str
    answers: list[KnownAnswer]
    when: datetime | None


@dataclass
class GoldCard:
    form: RubricForm  # the gradable questions, filled in
    item: GoldItem | None  # the turn's gold mark, if it has one (annotated `rated`)
    unfit: list[KnownAnswer]  # its stored answers the form cannot show: none fit the rubric now
    when: datetime | None
    action: str


# ---- The gold page ----


@requires(Action.MANAGE_GOLD)
def gold(request: HttpRequest, principal: Principal) -> HttpResponse:
    if request.method == "POST":
        _gold_post(request, principal)
        return redirect(request.get_full_path())
    cursor, forged = _cursor(request)
    found = gold_items(principal, limit=PAGE_SIZE, cursor=cursor)
    shown = found[:PAGE_SIZE]
    following = signed_id(shown[-1].pk, CURSOR_SALT) if len(found) > PAGE_SIZE else None
    project = project_pk(principal.project)
    context = {
        "rules": _rules_shown(project),
        "settings_url": reverse("portal:project", args=[principal.project]),
        "people": [_person_row(person) for person in gold_people(principal)],
        "items": _item_rows(project, shown),
        "comparisons": _comparison_rows(project),
        "cursor_error": NO_SUCH_PAGE if forged else "",
        "next_url": None if following is None else "?" + urlencode({"cursor": following}),
        "first_url": "?" if cursor is not None or forged else None,
    }
    return page(request, "feedback/gold.html", context, status=400 if forged else 200)


def _cursor(request: HttpRequest) -> tuple[int | None, bool]:
    """The id the page's cursor goes on below (None: the newest page), and whether it was
    forged (then the newest page, with a 400)."""
    query, problems = page_query(GoldPageQuery, request.GET)
    if problems:
        return None, True
    try:
        return id_of_signed(query.cursor, CURSOR_SALT), False
    except LearnError:
        return None, True


def _rules_shown(project: int) -> dict[str, str]:
    rules = gold_rules(project)
    return {
        "rate": f"{rules.rate:g}",
        "min_items": str(rules.min_items),
        "pause_below": f"{rules.pause_below:g}",
    }


def _gold_post(request: HttpRequest, principal: Principal) -> None:
    """Resume a person's queue or take a turn's gold mark off, as the button posted; what came
    of it as a message."""
    do = request.POST.get("do", "")
    if do == RESUME:
        _resume(request, principal, request.POST.get("username", ""))
    elif do == REMOVE_COMPARISON:
        _unmark_comparison(request, principal, request.POST.get("comparison", ""))
    elif do == REMOVE:
        turn = _posted_turn(principal, request.POST.get("turn", ""))
        if turn is None:
            messages.error(request, NO_SUCH_TURN)
        else:
            _unmark(request, principal, turn)


def _resume(request: HttpRequest, principal: Principal, name: str) -> None:
    try:
        gold_resume(principal, name)
    except LearnError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, RESUMED.format(name=name[:NAME_SHOWN]))


@dataclass(frozen=True)
class ComparisonRow:
    gold: GoldComparison
    best: str  # the known best candidate's answer, cut to RESPONSE_SHOWN
    component: str
    when: datetime | None


def _comparison_rows(project: int) -> list[ComparisonRow]:
    golds = list(
        GoldComparison.objects.filter(project_id=project)
        .select_related("comparison")
        .annotate(rated=Count("results"))
        .order_by("-id")[:GOLD_COMPARISONS_SHOWN]
    )
    best = {
        (c.comparison_id, c.candidate_id): c
        for c in Candidate.objects.filter(comparison_id__in=[g.comparison_id for g in golds])
    }
    rows = []
    for gold in golds:
        candidate = best.get((gold.comparison_id, gold.best))
        response = candidate.response if candidate else ""
        shown = response if len(response) <= RESPONSE_SHOWN else response[:RESPONSE_SHOWN] + "…"
        rows.append(
            ComparisonRow(gold, shown, candidate.component_name if candidate else "", when(gold.ts))
        )
    return rows


def _unmark_comparison(request: HttpRequest, principal: Principal, posted: str) -> None:
    comparison = posted_id(posted)
    if comparison is None:
        messages.error(request, NO_SUCH_COMPARISON)
        return
    try:
        gold_comparison_remove(principal, comparison)
    except LearnError:
        messages.error(request, NO_SUCH_COMPARISON)
    else:
        messages.success(request, "That comparison is no gold item now.")


def _unmark(request: HttpRequest, principal: Principal, turn: Turn) -> None:
    try:
        gold_remove(principal, turn.pk)
    except LearnError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, REMOVED.format(turn=turn.correlation_id))


def _posted_turn(principal: Principal, posted: str) -> Turn | None:
    turn_id = posted_id(posted)
    return None if turn_id is None else turn_in_project(turn_id, principal.project)


def _person_row(person: PersonAccuracy) -> PersonRow:
    accuracy = person.accuracy
    shown = "—"
    if accuracy is not None:
        shown = _percent(accuracy)
        if person.interval is not None:
            low, high = person.interval
            shown += f" ({low * 100:.0f}\N{EN DASH}{_percent(high)})"
    pause = person.paused
    if pause is None:
        return PersonRow(person, shown, "", None)
    return PersonRow(person, shown, _percent(pause.accuracy), when(pause.ts))


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%"


def _item_rows(project: int, items: list[GoldItem]) -> list[ItemRow]:
    rubric = rubric_current(project).rubric
    labels = question_labels(project) if items else {}
    return [
        ItemRow(
            gold,
            reverse("portal:turn_detail", args=[gold.turn_id]),
            known_answers(rubric, labels, _stored(gold), gold.turn.response),
            when(gold.ts),
        )
        for gold in items
    ]


# ---- Known answers, as stored and as the rubric takes them now ----


def gradable_questions(rubric: Rubric) -> list[AnyQuestion]:
    """The questions a gold answer can be given to: gradable (feedback.gold.marking), asked of
    the whole turn, not retired; none required, whatever the rubric says of a rating."""
    return [
        question.model_copy(update={"required": False})
        for question in rubric.questions
        if isinstance(question, GRADABLE) and not question.retired and question.asked_of(None)
    ]


def fitting(rubric: Rubric, known: dict[str, Any], response: str) -> dict[str, Any]:
    """Those of the known answers that the rubric takes now, as it would normalise them."""
    gradable = {question.key for question in gradable_questions(rubric)}
    fit: dict[str, Any] = {}
    for key, value in known.items():
        if key not in gradable:
            continue
        try:
            fit |= answers_clean(rubric, {key: value}, response=response, partial=True)
        except LearnError:
            continue
    return fit


def known_answers(
    rubric: Rubric, labels: dict[str, str], known: dict[str, Any], response: str
) -> list[KnownAnswer]:
    """Each known answer in words (the rubric's order, then any of a question it no longer
    has), and whether it still fits."""
    fit = fitting(rubric, known, response)
    return [
        KnownAnswer(said.question, said.answer, said.key in fit)
        for said in answers_in_words(known, labels, response)
    ]


def _stored(gold: GoldItem) -> dict[str, Any]:
    answers = gold.answers
    return answers if isinstance(answers, dict) else {NOT_BY_QUESTION: answers}


# ---- The gold card of a turn's page ----


def gold_card(principal: Principal, turn: Turn) -> GoldCard | None:
    """The card for a manager or a site admin (None for anyone else), filled in with the
    turn's known answers that fit the rubric now."""
    if not principal.may(Action.MANAGE_GOLD):
        return None
    project = project_pk(principal.project)
    return _card(project, rubric_current(project), turn)


def _card(
    project: int, stored: StoredRubric, turn: Turn, sent: dict[str, Any] | None = None
) -> GoldCard:
    """The turn's card, its questions filled in with the answers `sent`, or else with its known
    answers that still fit; those that do not, listed apart."""
    item = (
        GoldItem.objects.filter(project_id=project, turn=turn)
        .annotate(rated=Count("results"))
        .first()
    )
    known = {} if item is None else _stored(item)
    answers = fitting(stored.rubric, known, turn.response) if sent is None else sent
    questions = gradable_questions(stored.rubric)
    fields = [_clearable(each) for each in candidate_fields(questions, GOLD_FIELDS, answers, {})]
    labels = question_labels(project) if known else {}
    said = known_answers(stored.rubric, labels, known, turn.response)
    return GoldCard(
        RubricForm(stored.version, fields),
        item,
        [answer for answer in said if not answer.fits],
        None if item is None else when(item.ts),
        reverse("portal:gold_mark", args=[turn.pk]),
    )


def _clearable(field: QuestionField) -> QuestionField:
    """A question of one choice with a "Not known" choice too, chosen when no other is."""
    if field.control != "choices" or field.multiple:
        return field
    unknown = Choice("", NOT_KNOWN, "", not any(choice.checked for choice in field.choices))
    return replace(field, choices=[*field.choices, unknown])


@requires(Action.MANAGE_GOLD)
def gold_mark(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    """The gold card's buttons: Save as gold (its answers) or Remove; then back to the turn's
    page, or that page again with each refusal beside its question."""
    turn = turn_in_project(pk, principal.project)
    if turn is None:
        raise Http404("No such turn.")
    back = reverse("portal:turn_detail", args=[turn.pk])
    if request.method != "POST":
        return redirect(back)
    if request.POST.get("do") == REMOVE:
        _unmark(request, principal, turn)
        return redirect(back)
    project = project_pk(principal.project)
    stored = rubric_current(project)
    questions = gradable_questions(stored.rubric)
    answers = answers_sent(stored.rubric, request.POST, prefix=PREFIX, questions=questions)
    try:
        marked = gold_set(principal, turn.pk, GoldRequest(answers=answers))
    except LearnError as error:
        card = _card(project, stored, turn, answers)
        show_rubric_refusal(card.form, error)
        return _turn_page(request, principal, turn, card, status=error.http_status)
    count = len(marked.answers)
    said = SAVED.format(turn=turn.correlation_id, count=count, s="" if count == 1 else "s")
    messages.success(request, said)
    return redirect(back)


def _turn_page(
    request: HttpRequest, principal: Principal, turn: Turn, card: GoldCard, *, status: int
) -> HttpResponse:
    # Imported here: the turn's page imports this module for its card.
    from feedback.pages.explorer import turn_detail_page

    return turn_detail_page(request, principal, turn, card, status=status)
