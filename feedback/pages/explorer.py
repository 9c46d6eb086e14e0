"""The feedback explorer (docs/contract.md, "Explorer"), and its detail of one turn."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.http import Http404
from django.urls import reverse

from core.accounts.roles import Action
from core.form_words import in_form_words
from core.instants import utc
from core.projects.selection import project_pk
from core.web import page, requires, when
from feedback.exports import FORMATS, as_items
from feedback.filters import decode_cursor, encode_cursor, parse_feedback_query
from feedback.gold.pages import GoldCard, gold_card
from feedback.pages.rating import excerpt
from feedback.selectors.components import component_names
from feedback.selectors.explorer import (
    feedback_match_count,
    feedback_page,
    feedback_page_newer,
    people_names,
)
from feedback.selectors.turns import turn_ids, turn_in_project, turn_ratings
from feedback.selectors.visibility import sees_all_ratings, still_blind
from feedback.traces.steps import rated_part
from learnportal_protocol import FeedbackDimension, FeedbackPolarity, FeedbackSource
from learnportal_protocol.errors import LearnError

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.models import Turn


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
    moment = utc(value)
    return "" if moment is None else moment.strftime("%Y-%m-%dT%H:%M")


@requires(Action.EXPLORE)
def explorer(request: HttpRequest, principal: Principal) -> HttpResponse:
    params = {name: request.GET[name] for name in request.GET if name != NEWER}
    for name in ("since", "until"):
        if params.get(name):
            params[name] = _epoch(params[name])
    context: dict[str, Any] = {"raw": request.GET, "errors": {}, "rows": []}
    try:
        query = parse_feedback_query(params)
        after = decode_cursor(query.cursor)
        before = _newer_position(request.GET.get(NEWER, ""))
    except LearnError as error:
        context["errors"] = {
            str(d["loc"][-1]): in_form_words(d["msg"]) for d in error.details if d.get("loc")
        }
        context.update(_explorer_choices(principal))
        return page(request, "feedback/explorer.html", context, status=400)
    if before is not None:  # a "newer" link: the page above it, and older ones below
        rows, more_newer = feedback_page_newer(
            query, viewer=principal, before=before, limit=query.limit
        )
        last = (rows[-1].ts, rows[-1].id) if rows else None
    else:
        rows, last = feedback_page(query, viewer=principal, after=after, limit=query.limit)
        more_newer = after is not None
    filters = query.as_params()
    paged = {**filters, "limit": query.limit}
    turns_of = turn_ids(
        project_pk(principal.project), {row.correlation_id or row.feedback_id for row in rows}
    )
    matches, more_matches = feedback_match_count(query, viewer=principal)
    context.update(
        rows=[
            (
                item,
                turns_of.get(row.correlation_id or row.feedback_id),
                when(item.ts),
                rated_part(item.step_id),
            )
            for row, item in zip(rows, as_items(rows), strict=True)
        ],
        filters=filters,
        since=_picker(query.since),
        until=_picker(query.until),
        matches=matches,
        more_matches=more_matches,
        next_url=None
        if last is None
        else "?" + urlencode({**paged, "cursor": encode_cursor(last)}),
        newer_url="?" + urlencode({**paged, NEWER: encode_cursor((rows[0].ts, rows[0].id))})
        if more_newer and rows
        else None,
        first_url="?" + urlencode(filters) if query.cursor or before else None,
        exports=[
            (name, reverse("export", args=[name]) + ("?" + urlencode(filters) if filters else ""))
            for name in FORMATS
        ]
        if principal.may(Action.EXPORT)
        else [],
        **_explorer_choices(principal),
    )
    return page(request, "feedback/explorer.html", context)


NEWER = "newer"  # the explorer's link to the page above: a cursor read the other way


def _newer_position(text: str) -> tuple[float, int] | None:
    """Where a "newer" link's page ends, or None; a cursor the host did not sign is `invalid`,
    naming `newer`."""
    try:
        return decode_cursor(text)
    except LearnError as error:
        raise LearnError(
            error.code, error.message, [{**d, "loc": [NEWER]} for d in error.details]
        ) from None


def _explorer_choices(principal: Principal) -> dict[str, Any]:
    project = project_pk(principal.project)
    annotators = (
        people_names(project, CHOICES_SHOWN) if sees_all_ratings(principal) else [principal.name]
    )
    return {
        "sources": [s.value for s in FeedbackSource],
        "polarities": [p.value for p in FeedbackPolarity],
        "dimensions": [d.value for d in FeedbackDimension],
        "components": component_names(project)[:CHOICES_SHOWN],
        "annotators": annotators,
        "blind": not sees_all_ratings(principal),
    }


@requires(Action.EXPLORE)
def turn_detail(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    turn = turn_in_project(pk, principal.project)
    if turn is None:
        raise Http404("No such turn.")
    return turn_detail_page(request, principal, turn, gold_card(principal, turn))


def turn_detail_page(
    request: HttpRequest,
    principal: Principal,
    turn: Turn,
    gold: GoldCard | None,
    *,
    status: int = 200,
) -> HttpResponse:
    """The turn's page, with its gold card for a manager or a site admin (feedback.gold.pages,
    whose refusals render it again)."""
    ratings = turn_ratings(turn, viewer=principal)
    context = {
        "turn": turn,
        "ratings": [(rating, excerpt(turn, rating)) for rating in ratings],
        "hidden": still_blind(ratings, principal),
        "can_rate": principal.may(Action.FEEDBACK),
        "explorer_url": reverse("portal:explorer")
        + f"?{urlencode({'correlation_id': turn.correlation_id})}",
        "gold": gold,
    }
    return page(request, "feedback/turn_detail.html", context, status=status)
