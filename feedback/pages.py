"""Annotators: the list of agent turns, rating one of them, the queue that leases them, and
the feedback explorer with its detail of one turn. Reviewers: how much the annotators agree,
and turns imported from a file."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from pydantic import ValidationError

from core.accounts.roles import Action
from core.form_words import in_form_words
from core.inputs import QueryBool, QueryModel, QueryText, page_query
from core.instants import utc
from core.web import page, requires, show_learn_error, when
from feedback.exports import FORMATS, as_items
from feedback.filters import (
    decode_cursor,
    decode_turn_cursor,
    encode_cursor,
    encode_turn_cursor,
    parse_feedback_query,
)
from feedback.forms import POLARITY_HELP, RATING_LOCS, QueueRatingForm, RatingForm
from feedback.import_forms import ColumnMappingForm, ImportUploadForm
from feedback.import_staging import Staged, staged_file, staged_import_next, staged_upload
from feedback.lease_notes import LATE_KEPT, LEASE_WARNING_SECONDS, late_refusal, not_needed
from feedback.models import Turn
from feedback.queue import (
    queue_held,
    queue_next,
    queue_progress,
    queue_release,
    queue_skip,
    queue_undo,
)
from feedback.selectors.agreement import agreement_read
from feedback.selectors.components import component_names
from feedback.selectors.explorer import (
    feedback_match_count,
    feedback_page,
    feedback_page_newer,
    people_names,
)
from feedback.selectors.turns import rated_for, turn_ids, turn_page, turn_ratings, undoable_rating
from feedback.selectors.visibility import sees_all_ratings, still_blind
from feedback.services import feedback_record
from feedback.turn_import import guessed_mapping, mapping_checked
from learnportal_protocol import (
    Feedback,
    FeedbackDimension,
    FeedbackPolarity,
    FeedbackSource,
)
from learnportal_protocol.errors import HTTP_STATUS, ErrorCode, LearnError
from learnportal_protocol.ids import new_feedback_id
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback import models

QUEUE_PAGE_SIZE = 20
CHOICES_SHOWN = 200  # a typeahead's suggestions; any other value can still be typed
DISAGREEMENTS_SHOWN = 20
# Krippendorff's guideline (2004, p. 241): rely on data with alpha >= .800; draw tentative
# conclusions only from .667 to .800; below that, the coders do not agree well enough.
ALPHA_READINGS = ((0.8, "reliable"), (0.667, "tentative"), (float("-inf"), "unreliable"))


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
        component_name=component,
        session_id=session,
        open_only=open_only,
        after=after,
        limit=QUEUE_PAGE_SIZE,
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
        "ratings_per_turn": settings.LEARNPORTAL_RATINGS_PER_TURN,
        "components": component_names()[:CHOICES_SHOWN],
    }
    status = 400 if cursor_error or problems else 200
    return page(request, "feedback/turns.html", context, status=status)


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
        _show_refusal(form, error, turn)
        return _rate_page(request, principal, turn, form, status=400)
    messages.success(request, f"Rated {turn.correlation_id}. Thank you!")
    # The reveal of this turn, not another turn's form: a turn picked here would be one this
    # person holds no lease on (it may be someone else's); the next comes from the queue.
    return redirect("portal:rated", pk=turn.pk)


@requires(Action.FEEDBACK)
def turn_rated(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    """A turn with the ratings this person may now see, no form: the page after a rating, with
    "Next turn" taking one from the queue (a lease), or back to the list for a role with none."""
    turn = get_object_or_404(Turn, pk=pk)
    ratings = turn_ratings(turn, viewer=principal)
    context = {
        "turn": turn,
        "environment": _environment(turn),
        "ratings": [(rating, _excerpt(turn, rating)) for rating in ratings],
        "blind": still_blind(ratings, principal),
        "next_url": reverse("portal:queue" if principal.may(Action.QUEUE) else "portal:turns"),
        "rate_url": reverse("portal:rate", args=[turn.pk]),
        "turns_url": reverse("portal:turns"),
    }
    return page(request, "feedback/rated.html", context)


def _show_refusal(form: RatingForm, error: LearnError, turn: Turn) -> None:
    """A refusal next to the fields it names; the rule that the turn needs no rating from this
    person (feedback.raters) in a sentence of its own."""
    said = not_needed(error, turn.correlation_id)
    if said is None:
        show_learn_error(form, error, RATING_LOCS)
    else:
        form.add_error(None, said)


def _feedback(turn: Turn, form: RatingForm) -> Feedback:
    """The protocol's Feedback for this form, read as the API reads a body (JSON): its own
    rules, and only they, refuse it as `invalid`. A field left empty is left out."""
    data = form.cleaned_data
    sent: dict[str, Any] = {
        "feedback_id": data["feedback_id"],
        "correlation_id": turn.correlation_id,
        "session_id": turn.session_id,
        "component_name": turn.component_name,
        "rated_turn": {
            "prompt": turn.prompt,
            "response": turn.response,
            "model": turn.model,
            "environment": turn.environment_value(),
            "version": turn.version,
        },
        "polarity": data["polarity"] or None,
        "score": data["score"],
        "dimension": data["dimension"],
        "confidence": data["confidence"],
        "comment": data["comment"],
        "correction": data["correction"],
        "correction_span": form.span(),
    }
    try:
        return Feedback.model_validate_json(
            json.dumps({key: value for key, value in sent.items() if value is not None})
        )
    except ValidationError as exc:
        raise invalid_from(exc) from None


def _excerpt(turn: Turn, rating: models.Feedback) -> str:
    """The part of the response a rating's correction is tied to, if it names a span."""
    if rating.span_start is None or rating.span_end is None:
        return ""
    return turn.response[rating.span_start : rating.span_end]


def _environment(turn: Turn) -> str:
    """The turn's context, indented for reading ("" when it has none)."""
    value = turn.environment_value()
    return "" if value is None else json.dumps(value, indent=2, ensure_ascii=False)


def _turn_context(turn: Turn, principal: Principal, form: RatingForm) -> dict[str, Any]:
    """What the partials of one turn and its rating form need (templates/feedback/partials/)."""
    ratings = turn_ratings(turn, viewer=principal)
    return {
        "turn": turn,
        "environment": _environment(turn),
        "form": form,
        "ratings": [(rating, _excerpt(turn, rating)) for rating in ratings],
        "blind": still_blind(ratings, principal),
        "polarity_help": {p.value: text for p, text in POLARITY_HELP.items()},
    }


def _lease_clock(expires: float | None, now: float) -> dict[str, Any]:
    """The countdown of this person's lease on the turn they rate (rate.js), if they hold one."""
    if expires is None:
        return {"lease_remaining": None}
    return {
        "lease_remaining": max(0.0, expires - now),
        "lease_expires": when(expires),
        "lease_warning": LEASE_WARNING_SECONDS,
    }


def _rate_page(
    request: HttpRequest,
    principal: Principal,
    turn: Turn,
    form: RatingForm,
    status: int = 200,
) -> HttpResponse:
    now = time.time()
    context = {
        **_turn_context(turn, principal, form),
        **_lease_clock(queue_held(principal, turn.pk, now=now), now),
        "rate_url": reverse("portal:rate", args=[turn.pk]),
        "queue_url": reverse("portal:turns"),
    }
    return page(request, "feedback/rate.html", context, status=status)


# ---- The queue: one leased turn at a time -------------------------------------------------


@requires(Action.QUEUE)
def queue(request: HttpRequest, principal: Principal) -> HttpResponse:
    """GET: the turn leased to this person (a new one if they hold none); POST: rate, skip,
    undo or give back, then the next turn at once (a redirect to this page)."""
    if request.method == "POST":
        return _queue_post(request, principal)
    lease = queue_next(principal)
    if lease is None:
        return _queue_page(request, principal, None)
    form = QueueRatingForm(initial={"feedback_id": new_feedback_id(), "turn": lease.turn.pk})
    return _queue_page(request, principal, lease.turn, form, expires=lease.expires)


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
            if do == "skip":
                queue_skip(principal, turn_id)
                messages.info(request, "Skipped: you will not be offered that turn again.")
            else:
                queue_release(principal, turn_id)
                messages.info(request, "The turn is back in the queue for someone else.")
                return redirect("portal:home")
        else:
            messages.error(request, f"Unknown queue action {do!r}.")
    except LearnError as error:
        messages.error(request, error.message)
    return redirect("portal:queue")


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
    turn = Turn.objects.filter(pk=int(sent)).first() if sent.isdigit() else None
    if turn is None:
        messages.error(request, "That turn is no longer in the queue.")
        return redirect("portal:queue")
    # The lease this rating was made under; None when it ended before the person submitted.
    held = queue_held(principal, turn.pk)
    if not form.is_valid():
        return _queue_page(request, principal, turn, form, expires=held, status=400)
    try:
        feedback_record(principal=principal, feedbacks=[_feedback(turn, form)])
    except LearnError as error:
        late = None if held is not None else late_refusal(error, turn.correlation_id)
        if late is not None:
            messages.error(request, late)
            return redirect("portal:queue")
        _show_refusal(form, error, turn)
        return _queue_page(request, principal, turn, form, expires=held, status=400)
    if held is None:
        messages.info(request, LATE_KEPT.format(turn=turn.correlation_id))
    # No "thank you" message: the page says what was rated, with its undo (queue_undo.html).
    return redirect("portal:queue")


def _queue_page(
    request: HttpRequest,
    principal: Principal,
    turn: Turn | None,
    form: QueueRatingForm | None = None,
    *,
    expires: float | None = None,
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
        **_lease_clock(expires, now),
        "queue_url": reverse("portal:queue"),
        "turns_url": reverse("portal:turns"),
        "sees_all": sees_all_ratings(principal),
    }
    if turn is not None and form is not None:
        context |= _turn_context(turn, principal, form) | {"rate_url": reverse("portal:queue")}
    return page(request, "feedback/queue.html", context, status=status)


# --- the explorer (docs/contract.md, "Explorer") ------------------------------------------------


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
    turns_of = turn_ids({row.correlation_id or row.feedback_id for row in rows})
    matches, more_matches = feedback_match_count(query, viewer=principal)
    context.update(
        rows=[
            (item, turns_of.get(row.correlation_id or row.feedback_id), when(item.ts))
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
    annotators = people_names(CHOICES_SHOWN) if sees_all_ratings(principal) else [principal.name]
    return {
        "sources": [s.value for s in FeedbackSource],
        "polarities": [p.value for p in FeedbackPolarity],
        "dimensions": [d.value for d in FeedbackDimension],
        "components": component_names()[:CHOICES_SHOWN],
        "annotators": annotators,
        "blind": not sees_all_ratings(principal),
    }


@requires(Action.EXPLORE)
def turn_detail(request: HttpRequest, principal: Principal, pk: int) -> HttpResponse:
    turn = get_object_or_404(Turn, pk=pk)
    ratings = turn_ratings(turn, viewer=principal)
    context = {
        "turn": turn,
        "ratings": [(rating, _excerpt(turn, rating)) for rating in ratings],
        "hidden": still_blind(ratings, principal),
        "can_rate": principal.may(Action.FEEDBACK),
        "explorer_url": reverse("portal:explorer")
        + f"?{urlencode({'correlation_id': turn.correlation_id})}",
    }
    return page(request, "feedback/turn_detail.html", context)


@requires(Action.READ_AGREEMENT)
def agreement(request: HttpRequest, principal: Principal) -> HttpResponse:
    report = agreement_read(disagreements=DISAGREEMENTS_SHOWN)
    rows = [{"row": row, "reading": _reading(row.alpha)} for row in report.agreement.dimensions]
    disagreements = [
        {
            "turn": d,
            "url": reverse("portal:turn_detail", args=[d.turn_id]) if d.turn_id is not None else "",
        }
        for d in report.disagreements
    ]
    context = {"rows": rows, "disagreements": disagreements, "shown": DISAGREEMENTS_SHOWN}
    return page(request, "feedback/agreement.html", context)


def _reading(alpha: float | None) -> str:
    if alpha is None:
        return "not enough data"
    return next(label for floor, label in ALPHA_READINGS if alpha >= floor)


# --- turns from a file (feedback.turn_import) ---------------------------------------------------

REFUSED_SHOWN = 200  # rows of the refusals table; the count says how many more


def _import_limits() -> dict[str, int]:
    return {
        "max_bytes": settings.LEARNPORTAL_IMPORT_MAX_BYTES,
        "max_rows": settings.LEARNPORTAL_IMPORT_MAX_ROWS,
        "batch": settings.LEARNPORTAL_MAX_BATCH,
    }


@requires(Action.IMPORT_TURNS)
def turn_import(request: HttpRequest, principal: Principal) -> HttpResponse:
    """Upload a file of turns; its preview and column mapping are `turn_import_file`'s."""
    posted = request.method == "POST"
    form = ImportUploadForm(request.POST, request.FILES) if posted else ImportUploadForm()
    status = 200
    if posted:
        status = 400
        if form.is_valid():
            try:
                staged = staged_upload(form.cleaned_data["file"], owner=principal.user_id or 0)
            except LearnError as error:
                show_learn_error(form, error)
                status = HTTP_STATUS[error.code]
            else:
                return redirect("portal:turn_import_file", token=staged.token)
    context = {"form": form, **_import_limits()}
    return page(request, "feedback/import.html", context, status=status)


@requires(Action.IMPORT_TURNS)
def turn_import_file(request: HttpRequest, principal: Principal, token: str) -> HttpResponse:
    """An uploaded file's first rows and the mapping of its columns; posting the mapping imports
    it, all at once, or (`step`, the progress bar's script) one batch a request."""
    staged = staged_file(token, owner=principal.user_id or 0)
    form = ColumnMappingForm(
        request.POST if request.method == "POST" else None,
        columns=staged.columns,
        initial=guessed_mapping(staged.columns),
    )
    status = 200
    if request.method == "POST" and not staged.finished:
        status = 400
        if form.is_valid():
            try:
                mapping = mapping_checked(form.mapping(), staged.columns)
            except LearnError as error:
                show_learn_error(form, error)
            else:
                if request.POST.get("step"):
                    staged_import_next(staged, principal=principal, mapping=mapping)
                    return render(
                        request, "feedback/partials/import_progress.html", _import_context(staged)
                    )
                while not staged.finished:
                    staged_import_next(staged, principal=principal, mapping=mapping)
                return redirect("portal:turn_import_file", token=staged.token)
    context = {"form": form, **_import_context(staged), **_import_limits()}
    return page(request, "feedback/import_file.html", context, status=status)


def _import_context(staged: Staged) -> dict[str, Any]:
    refused = staged.report.refused
    return {
        "staged": staged,
        "preview": [[_cell(row.get(c)) for c in staged.columns] for row in staged.preview],
        "refused": refused[:REFUSED_SHOWN],
        "refused_more": max(0, len(refused) - REFUSED_SHOWN),
        "refused_rows": len({r.row for r in refused}),
        "percent": 100 if staged.rows == 0 else round(100 * staged.done / staged.rows),
    }


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)
