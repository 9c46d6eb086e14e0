"""`GET /api/judges/`: each machine judge against the project's people (docs/contract.md,
"Quality: judges calibrated"). Reviewers, managers and site admins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from feedback.judges.answers import JudgeFigures, JudgesAnswer
from feedback.judges.calibration import judges_calibration

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
