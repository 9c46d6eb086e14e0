"""`/api/turns/`: agents queue turns for annotators; everyone with a login reads the queue."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from feedback.models import Turn
from feedback.selectors import turn_queue
from feedback.services import TurnInput, turns_submit
from learnportal.accounts.roles import Action
from learnportal.protocol import RatedTurn
from learnportal.protocol.errors import ErrorCode, LearnError, detail
from learnportal.protocol.models import Name, RequiredName, StrictModel
from learnportal.protocol.wire import parse_body


class TurnItem(StrictModel):
    correlation_id: RequiredName
    session_id: Name = ""
    component_name: Name = ""
    rated_turn: RatedTurn


class TurnsRequest(StrictModel):
    turns: list[TurnItem]


class TurnsCreated(StrictModel):
    received: int
    created: int


class TurnSerializer(serializers.ModelSerializer):
    class Meta:
        model = Turn
        fields = [
            "id",
            "correlation_id",
            "session_id",
            "component_name",
            "prompt",
            "response",
            "model",
            "version",
            "created",
        ]


class TurnCursor(CursorPagination):
    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 500


class TurnsView(APIView):
    parser_classes: list = []

    @extend_schema(
        summary="List queued agent turns",
        parameters=[
            OpenApiParameter("session_id", str),
            OpenApiParameter("component_name", str),
            OpenApiParameter("correlation_id", str),
            OpenApiParameter("unrated", bool, description="only turns nobody has rated yet"),
            OpenApiParameter("cursor", str),
            OpenApiParameter("limit", int),
        ],
        responses=TurnSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        request.user.require(Action.READ_TURNS)
        turns = turn_queue(
            component_name=request.query_params.get("component_name", ""),
            session_id=request.query_params.get("session_id", ""),
        )
        if correlation_id := request.query_params.get("correlation_id"):
            turns = turns.filter(correlation_id=correlation_id)
        if request.query_params.get("unrated") in {"1", "true"}:
            turns = turns.filter(rated=False)
        paginator = TurnCursor()
        page = paginator.paginate_queryset(turns, request, view=self)
        return paginator.get_paginated_response(TurnSerializer(page, many=True).data)

    @extend_schema(
        summary="Queue agent turns for annotators",
        request=TurnsRequest,
        responses={201: TurnsCreated},
    )
    def post(self, request: Request) -> Response:
        request.user.require(Action.SUBMIT_TURNS)
        body = parse_body(TurnsRequest, request.body or b"{}")
        if len(body.turns) > settings.LEARNPORTAL_MAX_BATCH:
            raise LearnError(
                ErrorCode.TOO_LARGE,
                f"{len(body.turns)} turns in one request; at most "
                f"{settings.LEARNPORTAL_MAX_BATCH} are allowed.",
                [detail(["turns"], "too many items")],
            )
        created = turns_submit(
            principal=request.user,
            turns=[
                TurnInput(t.correlation_id, t.session_id, t.component_name, t.rated_turn)
                for t in body.turns
            ],
        )
        return Response({"received": len(body.turns), "created": created}, status=201)
