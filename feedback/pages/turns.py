"""Annotators: the list of agent turns, a page to rate one of them, and the page after a
rating, which shows its reveal.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse

from core.accounts.roles import Action
from core.inputs import QueryBool, QueryModel, QueryText, page_query
from core.projects.rules import ratings_per_turn
from core.projects.selection import project_pk
from core.web import page, requires
from feedback.filters import decode_turn_cursor, encode_turn_cursor
from feedback.forms import RatingForm
from feedback.lease_notes import not_needed
from feedback.pages.explorer import CHOICES_SHOWN
from feedback.pages.rating import (
    environment_text,
    excerpt,
    feedback_of_form,
    lease_clock,
    show_refusal,
    turn_context,
)
from feedback.pages.rubric_form import STEP_FIELD, RubricForm, rubric_form, rubric_rate
from feedback.pages.steps import STEP_PARAMETER, step_chosen
from feedback.queue import queue_held, queue_progress
from feedback.selectors.components import component_names
from feedback.selectors.turns import rated_for, turn_in_project, turn_page, turn_ratings
from feedback.selectors.visibility import still_blind
from feedback.services.feedbacks import feedback_record
from learnportal_protocol.errors import LearnError
from learnportal_protocol.ids import new_feedback_id

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.models import Turn


TURN_PAGE_SIZE = 20


class TurnListQuery(QueryModel):
    component: QueryText = ""
    session: QueryText = ""
    open: QueryBool = False
    cursor: QueryText = ""


@requires(Action.READ_TURNS)
def turn_list(request: HttpRequest, principal: Principal) -> HttpResponse:
    query, problems = page_query(TurnListQuery, request.GET)
    component, session, open_only = query.component, query.session, query.open
    try:
        after, cursor_error = decode_turn_cursor(query.cursor), ""
    except LearnError as error:
        after, cursor_error = None, str(error.details[0]["msg"])
    turns, last = turn_page(
        project=principal.project,
        component_name=component,
        session_id=session,
        open_only=open_only,
        after=after,
        limit=TURN_PAGE_SIZE,
    )
    filters = {"component": component, "session": session, "open": "1" if open_only else ""}
    kept = {name: value for name, value in filters.items() if value}
    context = {
        "turns": turns,
        "rated": rated_for(turns, principal),
        **filters,
        "cursor_error": cursor_error,
        "next_url": None
        if last is None
        else "?" + urlencode({**kept, "cursor": encode_turn_cursor(last)}),
        "first_url": "?" + urlencode(kept) if after is not None or cursor_error else None,
        "query_errors": problems,
        "progress": queue_progress(principal) if principal.may(Action.QUEUE) else None,
        "can_rate": principal.may(Action.FEEDBACK),
        "can_queue": principal.may(Action.QUEUE),
        "ratings_per_turn": ratings_per_turn(project_pk(principal.project)),
        "components": component_names(project_pk(principal.project))[:CHOICES_SHOWN],
    }
    status = 400 if cursor_error or problems else 200
    return page(request, "feedback/turns.html", context, status=status)


@requires(Action.FEEDBACK)
def turn_rate(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    turn = turn_in_project(pk, principal.project)
    if turn is None:
        raise Http404("No such turn.")
    if request.method != "POST":
        form = RatingForm(initial={"feedback_id": new_feedback_id()})
        step = step_chosen(turn, request.GET.get(STEP_PARAMETER, ""))
        return _rate_page(request, principal, turn, form, rubric_form(principal.project, step=step))
    step = step_chosen(turn, request.POST.get(STEP_FIELD, ""))
    rubric = rubric_form(principal.project, request.POST, step)
    if rubric is not None:
        return _rate_rubric(request, principal, turn, rubric)
    form = RatingForm(request.POST)
    if not form.is_valid():
        return _rate_page(request, principal, turn, form, status=400)
    try:
        feedback_record(principal=principal, feedbacks=[feedback_of_form(turn, form)])
    except LearnError as error:
        show_refusal(form, error, turn)
        return _rate_page(request, principal, turn, form, status=error.http_status)
    messages.success(request, f"Rated {turn.correlation_id}. Thank you!")
    # The reveal of this turn, not another turn's form: a turn picked here would be one this
    # person holds no lease on (it may be someone else's); the next comes from the queue.
    return redirect("portal:rated", pk=turn.pk)


@requires(Action.FEEDBACK)
def turn_rated(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    """A turn with the ratings this person may now see, no form: the page after a rating, with
    "Next turn" taking one from the queue (a lease), or back to the list for a role with none."""
    turn = turn_in_project(pk, principal.project)
    if turn is None:
        raise Http404("No such turn.")
    ratings = turn_ratings(turn, viewer=principal)
    context = {
        "turn": turn,
        "environment": environment_text(turn),
        "ratings": [(rating, excerpt(turn, rating)) for rating in ratings],
        "blind": still_blind(ratings, principal),
        "next_url": reverse("portal:queue" if principal.may(Action.QUEUE) else "portal:turns"),
        "rate_url": reverse("portal:rate", args=[turn.pk]),
        "turns_url": reverse("portal:turns"),
    }
    return page(request, "feedback/rated.html", context)


def _rate_rubric(
    request: HttpRequest, principal: Principal, turn: Turn, rubric: RubricForm
) -> HttpResponse:
    try:
        rubric_rate(principal, turn, rubric, request.POST)
    except LearnError as error:
        rubric.error = not_needed(error, turn.correlation_id) or rubric.error
        form = RatingForm(initial={"feedback_id": new_feedback_id()})
        return _rate_page(request, principal, turn, form, rubric, status=error.http_status)
    messages.success(request, f"Rated {turn.correlation_id}. Thank you!")
    return redirect("portal:rated", pk=turn.pk)


def _rate_page(
    request: HttpRequest,
    principal: Principal,
    turn: Turn,
    form: RatingForm,
    rubric: RubricForm | None = None,
    status: int = 200,
) -> HttpResponse:
    now = time.time()
    context = {
        **turn_context(turn, principal, form, rubric),
        **lease_clock(queue_held(principal, turn.pk, now=now), now),
        "rate_url": reverse("portal:rate", args=[turn.pk]),
        "queue_url": reverse("portal:turns"),
    }
    return page(request, "feedback/rate.html", context, status=status)
