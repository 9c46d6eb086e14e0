"""`GET /api/judges/`: each machine judge against the project's people (docs/contract.md,
"Quality: judges calibrated"), reviewers, managers and site admins; `/api/judges/marked/`: the
people marked as judges, managers and site admins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.projects.selection import principal_in
from feedback.judges.answers import JudgeFigures, JudgesAnswer, MarkedJudgeAnswer, MarkedJudges
from feedback.judges.calibration import judges_calibration
from feedback.judges.marks import MarkRequest, mark_add, mark_remove, marks_read
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request


class JudgesView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Each agent's and environment's agreement with people, by dimension",
        responses={
            200: JudgesAnswer,
            403: OpenApiResponse(description="only reviewers, managers and site admins"),
        },
    )
    def get(self, request: Request) -> Response:
        figures = judges_calibration(principal_of(request))
        answer = JudgesAnswer(results=[JudgeFigures.of(each) for each in figures])
        return Response(answer.model_dump(mode="json"))


JSON = "application/json"
MANAGERS_ONLY = OpenApiResponse(description="only the project's managers and site admins")


class MarkedJudgesView(APIView):
    parser_classes = []

    @extend_schema(
        summary="The people of the project marked as judges",
        responses={200: MarkedJudges, 403: MANAGERS_ONLY},
    )
    def get(self, request: Request) -> Response:
        marks = marks_read(principal_of(request))
        answer = MarkedJudges(results=[MarkedJudgeAnswer.of(mark) for mark in marks])
        return Response(answer.model_dump(mode="json"))

    @extend_schema(
        summary="Mark a member as a judge: measured against the other people, weighed alike",
        request={JSON: MarkRequest},
        responses={
            200: MarkedJudgeAnswer,
            400: OpenApiResponse(description="no member of the project by that name"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such project"),
        },
    )
    def post(self, request: Request) -> Response:
        body = parse_body(MarkRequest, request.body or b"{}")
        mark = mark_add(principal_in(principal_of(request), body.project), body)
        return Response(MarkedJudgeAnswer.of(mark).model_dump(mode="json"))


class MarkedJudgeView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Take a person's judge mark off",
        request=None,
        responses={
            204: OpenApiResponse(description="taken off"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="not marked in the project"),
        },
    )
    def delete(self, request: Request, username: str) -> Response:
        mark_remove(principal_of(request), username)
        return Response(status=204)
