"""Annotators: the queue, one leased turn at a time: rate it, skip it, give it back, or undo
one's last rating.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse

from core.accounts.roles import Action
from core.projects.selection import project_pk
from core.web import page, requires
from feedback.forms import QueueRatingForm
from feedback.gold.queue import is_paused
from feedback.lease_notes import LATE_KEPT, late_refusal, not_needed
from feedback.pages.rating import feedback_of_form, lease_clock, show_refusal, turn_context
from feedback.pages.rubric_form import (
    STEP_FIELD,
    RubricForm,
    rubric_form,
    rubric_rate,
    step_kinds_asked,
)
from feedback.pages.sessions import SESSIONS_ON, SESSIONS_PARAMETER
from feedback.pages.steps import STEP_PARAMETER, STEPS_PARAMETER, step_chosen
from feedback.queue import (
    queue_held,
    queue_next,
    queue_progress,
    queue_release,
    queue_skip,
    queue_undo,
)
from feedback.selectors.turns import turn_in_project, undoable_rating
from feedback.selectors.visibility import sees_all_ratings
from feedback.services.feedbacks import feedback_record
from feedback.sessions import SESSION_STEP
from feedback.traces.steps import step_kinds_named
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.ids import new_feedback_id

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.models import Turn, TurnStep


@requires(Action.QUEUE)
def queue(request: HttpRequest, principal: Principal) -> HttpResponse:
    """GET: the turn leased to this person (a new one if they hold none); POST: rate, skip,
    undo or give back, then the next turn at once (a redirect to this page)."""
    if request.method == "POST":
        return _queue_post(request, principal)
    try:
        kinds = step_kinds_named(request.GET.get(STEPS_PARAMETER, ""), STEPS_PARAMETER)
    except LearnError as error:
        messages.error(request, error.message)
        return redirect("portal:queue")  # the whole turns: the kinds named none
    sessions = _sessions_mode(request) and not kinds
    if is_paused(principal.name, project_pk(principal.project)):
        return _queue_page(request, principal, None, paused=True)
    lease = queue_next(principal, steps=kinds, sessions=sessions)
    if lease is None:
        return _queue_page(request, principal, None)
    form = QueueRatingForm(initial={"feedback_id": new_feedback_id(), "turn": lease.turn.pk})
    step = lease.step
    if step is None and not lease.session:
        step = step_chosen(lease.turn, request.GET.get(STEP_PARAMETER, ""))
    rubric = rubric_form(principal.project, step=step, session=lease.session)
    return _queue_page(
        request,
        principal,
        lease.turn,
        form,
        rubric,
        expires=lease.expires,
        leased=lease.step,
        session=lease.session,
    )


def _sessions_mode(request: HttpRequest) -> bool:
    return request.GET.get(SESSIONS_PARAMETER, "") == SESSIONS_ON


def _queue_url(request: HttpRequest) -> str:
    """This page, in the mode it was asked in: `?steps=` kinds, `?sessions=1`, or turns."""
    kinds = request.GET.get(STEPS_PARAMETER, "")
    url = reverse("portal:queue")
    if kinds:
        return f"{url}?{urlencode({STEPS_PARAMETER: kinds[:200]})}"
    return (
        f"{url}?{urlencode({SESSIONS_PARAMETER: SESSIONS_ON})}" if _sessions_mode(request) else url
    )


def _queue_post(request: HttpRequest, principal: Principal) -> HttpResponse:
    do = request.POST.get("do", "rate")
    if do == "rate":
        return _queue_rate(request, principal)
    try:
        if do == "undo":
            turn = queue_undo(principal, request.POST.get("feedback_id", ""))
            messages.info(
                request, f"Your rating of {turn.correlation_id} is undone: rate it again."
            )
        elif do in ("skip", "release"):
            turn_id = _turn_id(request.POST.get("turn", ""))
            step_id = request.POST.get(STEP_FIELD, "")
            if do == "skip":
                queue_skip(principal, turn_id, step_id)
                messages.info(request, "Skipped: you will not be offered that again.")
            else:
                queue_release(principal, turn_id, step_id)
                messages.info(request, "The turn is back in the queue for someone else.")
                return redirect("portal:home")
        else:
            messages.error(request, f"Unknown queue action {do!r}.")
    except LearnError as error:
        messages.error(request, error.message)
    return redirect(_queue_url(request))


def _turn_id(sent: str) -> int:
    try:
        return int(sent)
    except ValueError:
        raise LearnError(
            ErrorCode.INVALID, "The turn to skip or give back is missing or not a number."
        ) from None


def _queue_rate(request: HttpRequest, principal: Principal) -> HttpResponse:
    form = QueueRatingForm(request.POST)
    sent = request.POST.get("turn", "")
    turn = turn_in_project(int(sent), principal.project) if sent.isdigit() else None
    if turn is None:
        messages.error(request, "That turn is no longer in the queue.")
        return redirect(_queue_url(request))
    # The lease this rating was made under; None when it ended before the person submitted.
    held = queue_held(principal, turn.pk)
    session = request.POST.get(STEP_FIELD, "") == SESSION_STEP
    step = None if session else step_chosen(turn, request.POST.get(STEP_FIELD, ""))
    rubric = rubric_form(principal.project, request.POST, step, session=session)
    if rubric is not None:
        return _queue_rate_rubric(request, principal, turn, rubric, held)
    if not form.is_valid():
        return _queue_page(
            request, principal, turn, form, expires=held, session=session, status=400
        )
    try:
        rated = feedback_of_form(turn, form, session=session)
        feedback_record(principal=principal, feedbacks=[rated])
    except LearnError as error:
        late = None if held is not None else late_refusal(error, turn.correlation_id)
        if late is not None:
            messages.error(request, late)
            return redirect(_queue_url(request))
        show_refusal(form, error, turn)
        return _queue_page(
            request, principal, turn, form, expires=held, session=session, status=error.http_status
        )
    if held is None:
        messages.info(request, LATE_KEPT.format(turn=turn.correlation_id))
    # No "thank you" message: the page says what was rated, with its undo (queue_undo.html).
    return redirect(_queue_url(request))


def _queue_rate_rubric(
    request: HttpRequest, principal: Principal, turn: Turn, rubric: RubricForm, held: float | None
) -> HttpResponse:
    try:
        rubric_rate(principal, turn, rubric, request.POST)
    except LearnError as error:
        late = None if held is not None else late_refusal(error, turn.correlation_id)
        if late is not None:
            messages.error(request, late)
            return redirect(_queue_url(request))
        rubric.error = not_needed(error, turn.correlation_id) or rubric.error
        form = QueueRatingForm(initial={"feedback_id": new_feedback_id(), "turn": turn.pk})
        return _queue_page(
            request,
            principal,
            turn,
            form,
            rubric,
            expires=held,
            session=rubric.session,
            status=error.http_status,
        )
    if held is None:
        messages.info(request, LATE_KEPT.format(turn=turn.correlation_id))
    return redirect(_queue_url(request))


def _queue_page(
    request: HttpRequest,
    principal: Principal,
    turn: Turn | None,
    form: QueueRatingForm | None = None,
    rubric: RubricForm | None = None,
    *,
    expires: float | None = None,
    leased: TurnStep | None = None,
    session: bool = False,
    paused: bool = False,
    status: int = 200,
) -> HttpResponse:
    now = time.time()
    progress = queue_progress(principal, now=now)
    within = settings.LEARNPORTAL_UNDO_SECONDS
    undoable = undoable_rating(principal, now=now, within=within)
    context: dict[str, Any] = {
        "turn": turn,
        "progress": progress,
        "undoable": undoable,
        "undo_until": undoable.received + within if undoable else None,
        **lease_clock(expires, now),
        "queue_url": _queue_url(request),
        "turns_url": reverse("portal:turns"),
        "leased_step": leased,
        "step_mode": request.GET.get(STEPS_PARAMETER, "")[:200],
        "session_mode": _sessions_mode(request),
        "session_step": SESSION_STEP,
        "asked_step_kinds": step_kinds_asked(principal.project),
        "sees_all": sees_all_ratings(principal),
        "may_review": principal.may(Action.REVIEW_RATINGS),  # partials/queue_modes.html
        "paused": paused,
    }
    if turn is not None and form is not None:
        context |= turn_context(turn, principal, form, rubric, session=session) | {
            "rate_url": _queue_url(request),
            "queued": True,
        }
    return page(request, "feedback/queue.html", context, status=status)
