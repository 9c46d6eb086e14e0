"""Annotators: the queue of agent turns, rating one of them, and the feedback explorer with
its detail of one turn."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from pydantic import ValidationError

from feedback import selectors
from feedback.exports import FORMATS, as_items
from feedback.filters import decode_cursor, encode_cursor, parse_feedback_query
from feedback.forms import POLARITY_HELP, RATING_LOCS, RatingForm
from feedback.models import Turn
from feedback.services import feedback_record
from learnportal.accounts.roles import Action
from learnportal.protocol import (
    Feedback,
    FeedbackDimension,
    FeedbackPolarity,
    FeedbackSource,
    RatedTurn,
)
from learnportal.protocol.errors import LearnError
from learnportal.protocol.ids import new_feedback_id
from learnportal.protocol.wire import invalid_from
from learnportal.web import page, requires, show_learn_error, when

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from feedback import models
    from learnportal.accounts.principals import Principal

QUEUE_PAGE_SIZE = 20


@requires(Action.READ_TURNS)
def turn_list(request: HttpRequest, principal: Principal) -> HttpResponse:
    component, session = request.GET.get("component", ""), request.GET.get("session", "")
    turns = selectors.turn_queue(component_name=component, session_id=session, viewer=principal)
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
        return _rate_page(request, principal, turn, form)
    form = RatingForm(request.POST)
    if not form.is_valid():
        return _rate_page(request, principal, turn, form, status=400)
    try:
        feedback_record(principal=principal, feedbacks=[_feedback(turn, form)])
    except LearnError as error:
        show_learn_error(form, error, RATING_LOCS)
        return _rate_page(request, principal, turn, form, status=400)
    messages.success(request, f"Rated {turn.correlation_id}. Thank you!")
    following = selectors.next_unrated_turn(after=turn, viewer=principal)
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
    request: HttpRequest, principal: Principal, turn: Turn, form: RatingForm, status: int = 200
) -> HttpResponse:
    ratings = [
        (rating, _excerpt(turn, rating))
        for rating in selectors.turn_ratings(turn, viewer=principal)
    ]
    context = {
        "turn": turn,
        "form": form,
        "ratings": ratings,
        "polarity_help": {p.value: text for p, text in POLARITY_HELP.items()},
        "queue_url": reverse("portal:turns"),
    }
    return page(request, "feedback/rate.html", context, status=status)


# --- the explorer (docs/contract.md, "Explorer") ------------------------------------------------

CHOICES_SHOWN = 200  # a typeahead's suggestions; any other value can still be typed


def _epoch(value: str) -> str:
    """A date-time from the form's picker (taken as UTC) as epoch seconds; other text as is,
    for the filters to judge (the API's epoch seconds pass through)."""
    if "-" not in value.lstrip("-"):
        return value
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    return str((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())


def _picker(value: float | None) -> str:
    """Epoch seconds as the form's date-time picker shows them (UTC)."""
    if value is None:
        return ""
    return datetime.fromtimestamp(value, tz=UTC).strftime("%Y-%m-%dT%H:%M")


@requires(Action.EXPLORE)
def explorer(request: HttpRequest, principal: Principal) -> HttpResponse:
    params = {name: request.GET[name] for name in request.GET}
    for name in ("since", "until"):
        if params.get(name):
            params[name] = _epoch(params[name])
    context: dict[str, Any] = {"raw": request.GET, "errors": {}, "rows": []}
    try:
        query = parse_feedback_query(params)
        after = decode_cursor(query.cursor)
    except LearnError as error:
        context["errors"] = {str(d["loc"][-1]): d["msg"] for d in error.details if d.get("loc")}
        context.update(_explorer_choices(principal))
        return page(request, "feedback/explorer.html", context, status=400)
    rows, last = selectors.feedback_page(query, viewer=principal, after=after, limit=query.limit)
    filters = query.as_params()
    turn_ids = selectors.turn_ids({row.correlation_id or row.feedback_id for row in rows})
    context.update(
        rows=[
            (item, turn_ids.get(row.correlation_id or row.feedback_id), when(item.ts))
            for row, item in zip(rows, as_items(rows), strict=True)
        ],
        filters=filters,
        since=_picker(query.since),
        until=_picker(query.until),
        next_url=None
        if last is None
        else "?" + urlencode({**filters, "limit": query.limit, "cursor": encode_cursor(last)}),
        first_url="?" + urlencode(filters) if query.cursor else None,
        exports=[
            (name, reverse("export", args=[name]) + ("?" + urlencode(filters) if filters else ""))
            for name in FORMATS
        ]
        if principal.may(Action.EXPORT)
        else [],
        **_explorer_choices(principal),
    )
    return page(request, "feedback/explorer.html", context)


def _explorer_choices(principal: Principal) -> dict[str, Any]:
    annotators = (
        selectors.people_names(CHOICES_SHOWN)
        if selectors.sees_all_ratings(principal)
        else [principal.name]
    )
    return {
        "sources": [s.value for s in FeedbackSource],
        "polarities": [p.value for p in FeedbackPolarity],
        "dimensions": [d.value for d in FeedbackDimension],
        "components": selectors.component_names()[:CHOICES_SHOWN],
        "annotators": annotators,
        "blind": not selectors.sees_all_ratings(principal),
    }


@requires(Action.EXPLORE)
def turn_detail(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    turn = get_object_or_404(Turn, pk=pk)
    ratings = selectors.turn_ratings(turn, viewer=principal)
    rated_by_me = any(
        r.source == FeedbackSource.HUMAN.value and r.annotator_id == principal.name for r in ratings
    )
    context = {
        "turn": turn,
        "ratings": [(rating, _excerpt(turn, rating)) for rating in ratings],
        "hidden": not selectors.sees_all_ratings(principal) and not rated_by_me,
        "can_rate": principal.may(Action.FEEDBACK),
        "explorer_url": reverse("portal:explorer")
        + f"?{urlencode({'correlation_id': turn.correlation_id})}",
    }
    return page(request, "feedback/turn_detail.html", context)
