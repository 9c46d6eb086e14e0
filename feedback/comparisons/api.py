"""`/api/comparisons/`: candidates sent to be judged side by side; `/api/comparisons/<id>/judgments/`:
a person's judgment; `/api/leaderboard/`: the strengths the judgments give (docs/contract.md,
"Comparisons"). The queue's lease of a comparison is `POST /api/queue/next/?kind=comparison`
(feedback.api)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.accounts.roles import Action
from core.inputs import QueryModel, parse_query, query_parameters
from core.projects.selection import project_pk
from feedback.comparisons.answers import ComparisonsCreated, JudgmentCreated, Leaderboard
from feedback.comparisons.judgments import JudgmentRequest, judgment_record
from feedback.comparisons.leaderboard import RankedBy, leaderboard_read
from feedback.comparisons.submit import ComparisonsRequest, comparisons_submit
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request

JSON = "application/json"


class ComparisonsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Send comparisons: two or more candidate responses to one prompt, to judge",
        request={JSON: ComparisonsRequest},
        responses={
            201: ComparisonsCreated,
            403: OpenApiResponse(description="only agents, environments and managers send them"),
            413: OpenApiResponse(description="more comparisons than LEARNPORTAL_MAX_BATCH"),
        },
    )
    def post(self, request: Request) -> Response:
        principal = principal_of(request)
        body = parse_body(ComparisonsRequest, request.body or b"{}")
        answer = comparisons_submit(principal=principal, items=body.comparisons)
        return Response(answer.model_dump(mode="json"), status=201)


class JudgmentsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Judge a comparison: a preference of two, or a ranking",
        request={JSON: JudgmentRequest},
        responses={
            201: JudgmentCreated,
            403: OpenApiResponse(description="only people judge"),
            404: OpenApiResponse(description="no such comparison in this project"),
            409: OpenApiResponse(
                description="judged by you already, or by all the people it needs"
            ),
        },
    )
    def post(self, request: Request, comparison: int) -> Response:
        principal = principal_of(request)
        body = parse_body(JudgmentRequest, request.body or b"{}")
        judged = judgment_record(principal=principal, comparison=comparison, judgment=body)
        answer = JudgmentCreated(
            judgment_id=judged.judgment_id, ranking=judged.ranking, tie=judged.tie
        )
        return Response(answer.model_dump(mode="json"), status=201)


class LeaderboardQuery(QueryModel):
    by: RankedBy = Field(default=RankedBy.COMPONENT, description="component or model")


class LeaderboardView(APIView):
    @extend_schema(
        summary="Bradley-Terry strengths of components (or models) from judged comparisons",
        parameters=query_parameters(LeaderboardQuery),
        responses={
            200: Leaderboard,
            403: OpenApiResponse(description="not for annotators: they judge blind to names"),
        },
    )
    def get(self, request: Request) -> Response:
        principal = principal_of(request)
        principal.require(Action.READ_LEADERBOARD)
        query = parse_query(LeaderboardQuery, request.query_params)
        answer = leaderboard_read(project_pk(principal.project), query.by)
        return Response(answer.model_dump(mode="json"))
