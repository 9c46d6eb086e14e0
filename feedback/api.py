"""`/api/turns/`: agents queue turns for annotators; everyone with a login reads the queue.
`/api/agreement/`: how much the annotators agree, for reviewers and admins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from feedback.answers import Agreement, Turn, TurnPage, TurnsCreated
from feedback.selectors import agreement_read, turn_queue
from feedback.services import TurnInput, turns_submit
from learnportal.accounts.authentication import principal_of
from learnportal.accounts.roles import Action
from learnportal.inputs import (
    QueryBool,
    QueryInt,
    QueryModel,
    QueryText,
    parse_query,
    query_parameters,
)
from learnportal.protocol import RatedTurn
from learnportal.protocol.errors import ErrorCode, LearnError, detail
from learnportal.protocol.models import Name, RequiredName, StrictModel
from learnportal.protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request


class TurnItem(StrictModel):
    correlation_id: RequiredName
    session_id: Name = ""
    component_name: Name = ""
    rated_turn: RatedTurn


class TurnsRequest(StrictModel):
    turns: list[TurnItem]


class TurnsQuery(QueryModel):
    session_id: QueryText = ""
    component_name: QueryText = ""
    correlation_id: QueryText = ""
    unrated: QueryBool = Field(default=False, description="only turns nobody has rated yet")
    cursor: QueryText = Field(default="", description="opaque: from a page's next or previous")
    limit: QueryInt = Field(default=50, ge=1, le=500, description="turns a page")


class TurnCursor(CursorPagination):
    """Pages of `-id`; the page size is the validated `limit` (links keep it)."""

    ordering = "-id"

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise LearnError(
                ErrorCode.NOT_FOUND,
                "The cursor names no page of this list.",
                [detail(["cursor"], "not a cursor of this list")],
            ) from None


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
        turns = turn_queue(component_name=query.component_name, session_id=query.session_id)
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
        principal.require(Action.SUBMIT_TURNS)
        body = parse_body(TurnsRequest, request.body or b"{}")
        if len(body.turns) > settings.LEARNPORTAL_MAX_BATCH:
            raise LearnError(
                ErrorCode.TOO_LARGE,
                f"{len(body.turns)} turns in one request; at most "
                f"{settings.LEARNPORTAL_MAX_BATCH} are allowed.",
                [detail(["turns"], "too many items")],
            )
        answer = turns_submit(
            principal=principal,
            turns=[
                TurnInput(t.correlation_id, t.session_id, t.component_name, t.rated_turn)
                for t in body.turns
            ],
        )
        return Response(answer.model_dump(mode="json"), status=201)


class AgreementView(APIView):
    @extend_schema(
        summary="Krippendorff's alpha (interval) per dimension over human scores",
        responses={
            200: Agreement,
            403: OpenApiResponse(description="only reviewers and admins read agreement"),
        },
    )
    def get(self, request: Request) -> Response:
        principal_of(request).require(Action.READ_AGREEMENT)
        return Response(agreement_read().agreement.model_dump(mode="json"))
