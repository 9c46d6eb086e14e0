"""Annotators: the queue of agent turns, and rating one of them. Reviewers: how much the
annotators agree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect
from django.urls import NoReverseMatch, reverse
from pydantic import ValidationError

from feedback import selectors
from feedback.forms import POLARITY_HELP, RATING_LOCS, RatingForm
from feedback.models import Turn
from feedback.services import feedback_record
from learnportal.accounts.roles import Action
from learnportal.protocol import Feedback, FeedbackDimension, FeedbackPolarity, RatedTurn
from learnportal.protocol.errors import LearnError
from learnportal.protocol.ids import new_feedback_id
from learnportal.protocol.wire import invalid_from
from learnportal.web import page, requires, show_learn_error

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.http import HttpRequest, HttpResponse

    from feedback import models
    from learnportal.accounts.principals import Principal

QUEUE_PAGE_SIZE = 20
DISAGREEMENTS_SHOWN = 20
# Krippendorff's guideline (2004, p. 241): rely on data with alpha >= .800; draw tentative
# conclusions only from .667 to .800; below that, the coders do not agree well enough.
ALPHA_READINGS = ((0.8, "reliable"), (0.667, "tentative"), (float("-inf"), "unreliable"))


@requires(Action.READ_TURNS)
def turn_list(request: HttpRequest, principal: Principal) -> HttpResponse:
    component, session = request.GET.get("component", ""), request.GET.get("session", "")
    turns = selectors.turn_queue(component_name=component, session_id=session)
    paginator = Paginator(turns, QUEUE_PAGE_SIZE)
    context = {
        "page_obj": paginator.get_page(request.GET.get("page")),
        "component": component,
        "session": session,
        "unrated": turns.filter(rated=False).count(),
        "can_rate": principal.may(Action.FEEDBACK),
        **selectors.queue_filters(),
    }
    return page(request, "feedback/turns.html", context)


@requires(Action.FEEDBACK)
def turn_rate(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    turn = get_object_or_404(Turn, pk=pk)
    if request.method != "POST":
        form = RatingForm(initial={"feedback_id": new_feedback_id()})
        return _rate_page(request, turn, form)
    form = RatingForm(request.POST)
    if not form.is_valid():
        return _rate_page(request, turn, form, status=400)
    try:
        feedback_record(principal=principal, feedbacks=[_feedback(turn, form)])
    except LearnError as error:
        show_learn_error(form, error, RATING_LOCS)
        return _rate_page(request, turn, form, status=400)
    messages.success(request, f"Rated {turn.correlation_id}. Thank you!")
    following = selectors.next_unrated_turn(after=turn)
    if following is None:
        messages.info(request, "That was the last unrated turn in the queue.")
        return redirect("portal:turns")
    return redirect("portal:rate", pk=following.pk)


def _feedback(turn: Turn, form: RatingForm) -> Feedback:
    """The protocol's Feedback for this form; its own rules refuse it as `invalid`."""
    data = form.cleaned_data
    try:
        return Feedback(
            feedback_id=data["feedback_id"],
            correlation_id=turn.correlation_id,
            session_id=turn.session_id,
            component_name=turn.component_name,
            rated_turn=RatedTurn(prompt=turn.prompt, response=turn.response, model=turn.model),
            polarity=FeedbackPolarity(data["polarity"]),
            score=data["score"],
            dimension=FeedbackDimension(data["dimension"]),
            confidence=data["confidence"],
            comment=data["comment"],
            correction=data["correction"],
            correction_span=form.span(),
        )
    except ValidationError as exc:
        raise invalid_from(exc) from None


def _excerpt(turn: Turn, rating: models.Feedback) -> str:
    """The part of the response a rating's correction is tied to, if it names a span."""
    if rating.span_start is None or rating.span_end is None:
        return ""
    return turn.response[rating.span_start : rating.span_end]


def _rate_page(
    request: HttpRequest, turn: Turn, form: RatingForm, status: int = 200
) -> HttpResponse:
    ratings = [(rating, _excerpt(turn, rating)) for rating in selectors.turn_ratings(turn)]
    context = {
        "turn": turn,
        "form": form,
        "ratings": ratings,
        "polarity_help": {p.value: text for p, text in POLARITY_HELP.items()},
        "queue_url": reverse("portal:turns"),
    }
    return page(request, "feedback/rate.html", context, status=status)


@requires(Action.READ_AGREEMENT)
def agreement(request: HttpRequest, principal: Principal) -> HttpResponse:
    report = selectors.agreement_read(disagreements=DISAGREEMENTS_SHOWN)
    rows = [{"row": row, "reading": _reading(row.alpha)} for row in report.agreement.dimensions]
    detail = _turn_detail_url()
    disagreements = [
        {"turn": d, "url": detail(d.turn_id) if d.turn_id is not None else ""}
        for d in report.disagreements
    ]
    context = {"rows": rows, "disagreements": disagreements, "shown": DISAGREEMENTS_SHOWN}
    return page(request, "feedback/agreement.html", context)


def _reading(alpha: float | None) -> str:
    if alpha is None:
        return "not enough data"
    return next(label for floor, label in ALPHA_READINGS if alpha >= floor)


def _turn_detail_url() -> Callable[[int], str]:
    """The explorer's view of one turn: by its URL name, or by its path until that page is
    routed (it comes with the explorer)."""
    try:
        reverse("portal:turn_detail", args=[0])
    except NoReverseMatch:
        return lambda pk: f"/explorer/turns/{pk}/"
    return lambda pk: reverse("portal:turn_detail", args=[pk])
