"""`/api/turns/`: agents queue turns for annotators; everyone with a login reads the queue.
`/api/queue/*`: people take turns to rate from it, one lease at a time (feedback.queue).
`/api/ratings/`: a person's answers to their project's rubric on one turn.
`/api/agreement/`: how much the annotators agree, for reviewers and admins."""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlencode

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from pydantic import ConfigDict, Field, model_validator
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.accounts.roles import Action
from core.inputs import (
    BAD_CURSOR,
    WHOLE_NUMBER,
    QueryBool,
    QueryInt,
    QueryModel,
    QueryText,
    parse_query,
    query_parameters,
)
from core.projects.selection import PROJECT_FIELD, principal_in, project_pk
from feedback.answers import (
    Agreement,
    FeedbackPage,
    QueueLease,
    QueueLeased,
    QueueLeasedSession,
    QueueLeasedStep,
    QueueTurn,
    QueueUndone,
    RatingCreated,
    Turn,
    TurnDetail,
    TurnPage,
    TurnsCreated,
)
from feedback.comparisons.agreement import comparison_agreement
from feedback.comparisons.answers import QueueLeasedComparison
from feedback.comparisons.exports import (
    COMPARISONS,
    PAIR_FORMATS,
    judgment_chunks,
    judgments_matching,
)
from feedback.comparisons.queue import comparison_next, comparison_release, comparison_skip
from feedback.exports import ANSWERS, FORMATS, as_items, export_chunks, rating_chunks
from feedback.filters import (
    FeedbackFilters,
    FeedbackQuery,
    decode_cursor,
    encode_cursor,
    parse_feedback_query,
    parse_filters,
)
from feedback.question_sums import question_agreements
from feedback.queue import queue_held, queue_next, queue_release, queue_skip, queue_undo
from feedback.selectors.agreement import agreement_read
from feedback.selectors.explorer import feedback_matching, feedback_page
from feedback.selectors.turns import turn_queue, turn_steps
from feedback.services.ratings import Remarks, rating_record
from feedback.services.turns import turns_submit
from feedback.sessions import SESSION_STEP, session_opened, session_size
from feedback.traces.steps import StepKind, step_kinds_named
from feedback.turn_items import TurnsRequest, turn_inputs, turns_batch_checked
from learnportal_protocol.errors import ErrorCode, LearnError, detail, not_found
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import INT64, Name, RequiredName, Span, StrictModel, Text
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from rest_framework.request import Request


class TurnsQuery(QueryModel):
    session_id: QueryText = ""
    component_name: QueryText = ""
    correlation_id: QueryText = ""
    unrated: QueryBool = Field(
        default=False,
        description="only turns that still need human ratings (to an annotator: that they have "
        "not rated themselves)",
    )
    cursor: QueryText = Field(default="", description="opaque: from a page's next or previous")
    limit: QueryInt = Field(default=50, ge=1, le=500, description="turns a page")


class TurnCursor(CursorPagination):
    """Pages of `-id`; the page size is the validated `limit` (links keep it)."""

    ordering = "-id"

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            cursor = None
        else:
            # DRF reads the position as any text; a turn's id is a whole number of 64 bits.
            if cursor is None or cursor.position is None or _row_id(cursor.position):
                return cursor
        raise LearnError(
            ErrorCode.NOT_FOUND,
            "The cursor names no page of this list.",
            [detail(["cursor"], BAD_CURSOR)],
        )


def _row_id(position: object) -> bool:
    return (
        WHOLE_NUMBER.fullmatch(str(position)) is not None
    )  # text at run time, whatever DRF's stubs say


class TurnsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="List queued agent turns",
        parameters=query_parameters(TurnsQuery),
        responses={200: TurnPage, 404: OpenApiResponse(description="a cursor of no page")},
    )
    def get(self, request: Request) -> Response:
        principal_of(request).require(Action.READ_TURNS)
        query = parse_query(TurnsQuery, request.query_params)
        turns = turn_queue(
            component_name=query.component_name,
            session_id=query.session_id,
            viewer=principal_of(request),
        )
        if query.correlation_id:
            turns = turns.filter(correlation_id=query.correlation_id)
        if query.unrated:
            turns = turns.filter(rated=False)
        paginator = TurnCursor(query.limit)
        page = paginator.paginate_queryset(turns, request, view=self) or []
        answer = TurnPage(
            next=paginator.get_next_link(),
            previous=paginator.get_previous_link(),
            results=[Turn.model_validate(turn) for turn in page],
        )
        return Response(answer.model_dump(mode="json"))

    @extend_schema(
        summary="Queue agent turns for annotators",
        request={"application/json": TurnsRequest},
        responses={
            201: TurnsCreated,
            403: OpenApiResponse(description="only agents, environments and admins queue turns"),
            413: OpenApiResponse(description="more turns than LEARNPORTAL_MAX_BATCH"),
        },
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        body = parse_body(TurnsRequest, request.body or b"{}")
        turns_batch_checked(len(body.turns))
        answer = turns_submit(principal=principal, turns=turn_inputs(body.turns))
        return Response(answer.model_dump(mode="json"), status=201)


class TurnView(APIView):
    parser_classes = []

    @extend_schema(
        operation_id="turn_retrieve",
        summary="One queued turn, with its steps",
        responses={200: TurnDetail, 404: OpenApiResponse(description="no such turn of yours")},
    )
    def get(self, request: Request, pk: int) -> Response:
        principal = principal_of(request)
        principal.require(Action.READ_TURNS)
        turn = turn_queue(viewer=principal).filter(pk=pk).first()
        if turn is None:
            raise not_found(f"No turn {pk} in this project.", [detail(["turn"], "no such turn")])
        return Response(TurnDetail.of(turn, turn_steps(turn)).model_dump(mode="json"))


# --- the queue: /api/queue/* (feedback.queue) ------------------------------------------------


class QueueNextRequest(StrictModel):
    """Nothing to send: the body may be left out, or be `{}`."""


_KIND = "|".join(kind.value for kind in StepKind)


class QueueNextQuery(QueryModel):
    steps: str = Field(
        default="",
        pattern=rf"^(({_KIND})(,({_KIND}))*)?$",
        description="step kinds, separated by commas (llm, tool, retrieval, agent, chain, "
        "other): lease the next step of one of them instead of a turn",
    )
    sessions: bool = Field(
        default=False,
        description="`true`: lease the next session to rate whole instead of a turn (not with "
        "`steps`)",
    )
    kind: Literal["turn", "comparison"] = Field(
        default="turn",
        description="`comparison`: lease the next comparison to judge (not with `steps` or "
        "`sessions`)",
    )

    @model_validator(mode="after")
    def _one_unit(self) -> QueueNextQuery:
        if self.sessions and self.steps:
            raise FieldError("sessions", "either `steps` or `sessions`, not both")
        if self.kind == "comparison" and (self.sessions or self.steps):
            raise FieldError("kind", "a comparison is leased whole: no `steps` or `sessions`")
        return self


class QueueTurnRequest(StrictModel):
    # What `_one_leased` says, for the schema: a turn (its step, if any), or a comparison.
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["turn"],
                    "properties": {"turn": {"type": "integer"}},
                    "not": {"required": ["comparison"]},
                },
                {
                    "required": ["comparison"],
                    "properties": {"comparison": {"type": "integer"}},
                    "not": {"anyOf": [{"required": ["turn"]}, {"required": ["step_id"]}]},
                },
            ]
        }
    )

    turn: int | None = Field(
        default=None, ge=1, le=INT64, description="the id of a turn leased to you"
    )
    step_id: Name = Field(
        default="",
        description="the step of it leased to you, if a step; `@session` for the session it begins",
    )
    comparison: int | None = Field(
        default=None, ge=1, le=INT64, description="the id of a comparison leased to you, instead"
    )

    @model_validator(mode="after")
    def _one_leased(self) -> QueueTurnRequest:
        if (self.turn is None) == (self.comparison is None):
            raise FieldError("turn", "name the turn leased to you, or the `comparison`, not both")
        if self.comparison is not None and self.step_id:
            raise FieldError("step_id", "a comparison is leased whole: no `step_id` with it")
        return self


class QueueUndoRequest(StrictModel):
    feedback_id: RequiredName = Field(description="the feedback_id of your own rating")


NOT_LEASED = OpenApiResponse(description="no lease of yours on this turn")
PEOPLE_ONLY = OpenApiResponse(description="only people rate from the queue")
JSON = "application/json"


class QueueNextView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Lease the next turn, step or session to rate",
        description="A person holding a live lease gets the same turn back (with `steps`, "
        "the same step, if it is of one of those kinds; with `sessions`, the same session).",
        parameters=query_parameters(QueueNextQuery),
        request={JSON: QueueNextRequest},
        responses={
            200: QueueLease,
            204: OpenApiResponse(description="nothing left for you to rate"),
            403: PEOPLE_ONLY,
            409: OpenApiResponse(description="your queue is paused by your gold accuracy"),
        },
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        parse_body(QueueNextRequest, request.body or b"{}")
        query = parse_query(QueueNextQuery, request.query_params)
        if query.kind == "comparison":
            held = comparison_next(principal)
            if held is None:
                return Response(status=204)
            return Response(QueueLeasedComparison.of(held).model_dump(mode="json"))
        lease = queue_next(
            principal, steps=step_kinds_named(query.steps, "steps"), sessions=query.sessions
        )
        if lease is None:
            return Response(status=204)
        answer: QueueLeased
        if lease.session:
            turns = session_size(lease.turn)
            answer = QueueLeasedSession.of_session(lease.turn, lease.expires, turns)
        elif lease.step is not None:
            answer = QueueLeasedStep.of_step(lease.turn, lease.expires, lease.step)
        else:
            answer = QueueLeased.of(lease.turn, lease.expires)
        return Response(answer.model_dump(mode="json"))


class QueueReleaseView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Give back a leased turn",
        request={JSON: QueueTurnRequest},
        responses={204: OpenApiResponse(description="released"), 403: PEOPLE_ONLY, 404: NOT_LEASED},
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        body = parse_body(QueueTurnRequest, request.body or b"{}")
        if body.comparison is not None:
            comparison_release(principal, body.comparison)
        else:
            assert body.turn is not None  # QueueTurnRequest._one_leased
            queue_release(principal, body.turn, body.step_id)
        return Response(status=204)


class QueueSkipView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Skip a leased turn: never offered to you again",
        request={JSON: QueueTurnRequest},
        responses={204: OpenApiResponse(description="skipped"), 403: PEOPLE_ONLY, 404: NOT_LEASED},
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        body = parse_body(QueueTurnRequest, request.body or b"{}")
        if body.comparison is not None:
            comparison_skip(principal, body.comparison)
        else:
            assert body.turn is not None  # QueueTurnRequest._one_leased
            queue_skip(principal, body.turn, body.step_id)
        return Response(status=204)


class QueueUndoView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Undo your own rating, within LEARNPORTAL_UNDO_SECONDS",
        description="The rating is kept, marked retracted (it no longer counts); its turn is "
        "leased back to you to rate again.",
        request={JSON: QueueUndoRequest},
        responses={
            200: QueueUndone,
            403: PEOPLE_ONLY,
            404: OpenApiResponse(
                description="no rating of yours with this id, or it rates no turn"
            ),
            409: OpenApiResponse(description="undone already, or older than the undo window"),
        },
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        body = parse_body(QueueUndoRequest, request.body or b"{}")
        turn = queue_undo(principal, body.feedback_id)
        answer = QueueUndone(turn=QueueTurn.of(turn), lease_expires=queue_held(principal, turn.pk))
        return Response(answer.model_dump(mode="json"))


class RatingRequest(StrictModel):
    # What `_one_rated` says, for the schema: a turn (its step, if any), or a session whole.
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["turn"],
                    "properties": {"turn": {"minLength": 1}, "session_id": {"maxLength": 0}},
                },
                {
                    "required": ["session_id"],
                    "properties": {
                        "session_id": {"minLength": 1},
                        "turn": {"maxLength": 0},
                        "step_id": {"maxLength": 0},
                    },
                },
            ]
        }
    )

    turn: Name = Field(
        default="", description="the turn rated: its id, or its correlation_id (or `session_id`)"
    )
    session_id: Name = Field(
        default="",
        description="the session rated whole, instead of `turn` (as `step_id` `@session` of "
        "the turn that begins it): the answers are to the questions asked of a whole turn, "
        "but spans",
    )
    answers: dict[str, Any] = Field(description="question key to answer (docs/contract.md)")
    project: Name = Field(default="", description="the project rated in, as `?project=`")
    comment: Text = ""
    correction: Text = Field(default="", description="a better response, for preference pairs")
    correction_span: Span | None = Field(
        default=None,
        description="[start, end) of the response (of the step's output, for a step) that the "
        "correction replaces",
    )
    step_id: Name = Field(
        default="",
        description="the step of the turn rated (its span id), rather than the whole turn: "
        "the answers are to the rubric's questions asked of its kind",
    )
    rubric_version: int | None = Field(
        default=None,
        ge=1,
        description="the version of the rubric the answers were given on; refused (409) when "
        "it is no longer the current one",
    )

    @model_validator(mode="after")
    def _one_rated(self) -> RatingRequest:
        if bool(self.turn) == bool(self.session_id):
            raise FieldError("turn", "name the turn rated, or the `session_id`, not both")
        if self.session_id and self.step_id:
            raise FieldError("step_id", "a session is rated whole: no `step_id` with it")
        return self


class RatingsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Rate a turn on its project's rubric",
        description="All the answers are stored, or none: a bad one is refused naming "
        '`["answers", key]`. The rating counts toward the queue as a rating from the page does '
        "and ends your lease on the turn.",
        request={JSON: RatingRequest},
        responses={
            201: RatingCreated,
            403: PEOPLE_ONLY,
            404: OpenApiResponse(description="no such turn in this project"),
            409: OpenApiResponse(description="`rubric_version` is no longer the current one"),
        },
    )
    def post(self, request: Request) -> Response:
        body = parse_body(RatingRequest, request.body or b"{}")
        principal = principal_in(principal_of(request), body.project)
        remarks = Remarks(
            comment=body.comment, correction=body.correction, correction_span=body.correction_span
        )
        opener = session_opened(principal.project, body.session_id) if body.session_id else None
        outcome = rating_record(
            principal=principal,
            turn=body.turn or str(opener),
            answers=body.answers,
            remarks=remarks,
            rubric_version=body.rubric_version,
            step_id=SESSION_STEP if opener is not None else body.step_id,
        )
        answer = RatingCreated(rating_id=outcome.rating_id, rubric_version=outcome.rubric_version)
        return Response(answer.model_dump(mode="json"), status=201)


class FeedbackView(APIView):
    """The explorer's list (docs/contract.md, "Explorer"), blind for annotators; a machine's
    own feedback for an agent or an environment."""

    parser_classes = []

    @extend_schema(
        summary="List feedback, newest first, with filters and a cursor",
        parameters=query_parameters(FeedbackQuery),
        description="People read the explorer's list (an annotator blind to other people's "
        "ratings); an agent or an environment reads only the feedback it sent itself.",
        responses={200: FeedbackPage},
    )
    def get(self, request: Request) -> Response:
        principal = principal_of(request)
        principal.require(Action.LIST_FEEDBACK)
        query = parse_feedback_query(request.query_params)
        rows, last = feedback_page(
            query, viewer=principal, after=decode_cursor(query.cursor), limit=query.limit
        )
        following = None
        if last is not None:
            params = {**query.as_params(), "limit": str(query.limit), "cursor": encode_cursor(last)}
            if request.query_params.get(PROJECT_FIELD):
                params[PROJECT_FIELD] = principal.project
            following = request.build_absolute_uri(f"{request.path}?{urlencode(params)}")
        answer = FeedbackPage(results=as_items(rows), next=following)
        return Response(answer.model_dump(mode="json"))


JSONL = "application/jsonl"
EXPORT_FORMATS = (*FORMATS, ANSWERS, COMPARISONS)


def streamed(request: Request, chunks: Iterator[bytes], filename: str) -> StreamingHttpResponse:
    """A streamed download of `chunks`, consumed one at a time by either server.

    Django consumes a sync iterator served over ASGI (and an async one over WSGI) by first
    making a list of it; so over ASGI each chunk is pulled in the request's thread (the one
    whose database connection the iterator reads with) by an async iterator instead.
    """
    content: Iterator[bytes] | AsyncIterator[bytes] = chunks
    if isinstance(request._request, ASGIRequest):
        content = _pulled(chunks)
    response = StreamingHttpResponse(content, content_type=JSONL)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


async def _pulled(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    def pull() -> bytes | None:
        return next(chunks, None)

    step = sync_to_async(pull, thread_sensitive=True)
    while (chunk := await step()) is not None:
        yield chunk


class ExportView(APIView):
    """Training data from the feedback the explorer's filters match, streamed, with no limit."""

    parser_classes = []

    @extend_schema(
        summary="Export feedback as JSON lines (" + ", ".join(EXPORT_FORMATS) + ")",
        parameters=[
            OpenApiParameter(
                "kind",
                {"type": "string", "enum": list(EXPORT_FORMATS)},
                OpenApiParameter.PATH,
                description="the format: see docs/contract.md, Exports",
            ),
            *query_parameters(FeedbackFilters),
        ],
        responses={
            (200, JSONL): OpenApiResponse(
                response={"type": "string"},
                description="one JSON object a line, streamed",
            ),
            403: OpenApiResponse(description="only reviewers and admins export"),
            404: OpenApiResponse(description="an unknown format"),
        },
    )
    def get(self, request: Request, kind: str) -> StreamingHttpResponse:
        principal = principal_of(request)
        principal.require(Action.EXPORT)
        if kind not in EXPORT_FORMATS:
            raise LearnError(
                ErrorCode.NOT_FOUND,
                f"No export format {kind!r}; the formats are {', '.join(EXPORT_FORMATS)}.",
                [detail(["format"], "unknown format")],
            )
        filters = parse_filters(request.query_params)
        project = project_pk(principal.project)
        if kind == ANSWERS:
            return streamed(request, rating_chunks(project), f"{kind}.jsonl")
        judged = judgments_matching(project, filters)
        if kind == COMPARISONS:
            chunks = judgment_chunks(kind, judged, component=filters.component)
            return streamed(request, chunks, f"{kind}.jsonl")
        chunks = export_chunks(kind, feedback_matching(filters, viewer=principal))
        if kind in PAIR_FORMATS:  # the pairs of corrections, then the pairs judged
            chunks = chain(chunks, judgment_chunks(kind, judged, component=filters.component))
        return streamed(request, chunks, f"{kind}.jsonl")


class AgreementView(APIView):
    @extend_schema(
        summary="Krippendorff's alpha (interval) per dimension over human scores",
        responses={
            200: Agreement,
            403: OpenApiResponse(description="only reviewers and admins read agreement"),
        },
    )
    def get(self, request: Request) -> Response:
        principal = principal_of(request)
        principal.require(Action.READ_AGREEMENT)
        answer = agreement_read(principal.project).agreement.model_copy(
            update={
                "questions": question_agreements(principal.project),
                "comparisons": comparison_agreement(project_pk(principal.project)),
            }
        )
        return Response(answer.model_dump(mode="json"))
