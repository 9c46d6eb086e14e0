"""`/api/turns/<id>/gold/` marks a turn as a gold item (PUT) or takes the mark off (DELETE);
`/api/gold/` lists them, `/api/gold/people/` each person's accuracy on them, and
`/api/gold/people/<username>/resume/` resumes a paused queue; `/api/comparisons/<id>/gold/`
marks a comparison's known best candidate (docs/contract.md, "Quality: gold
items"). Managers and site admins only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.inputs import QueryInt, QueryModel, id_of_signed, parse_query, query_parameters, signed_id
from core.projects.selection import principal_in
from feedback.gold.answers import (
    GoldPage,
    GoldPeople,
    PersonGold,
    StoredGold,
    StoredGoldComparison,
)
from feedback.gold.comparisons import (
    GoldComparisonRequest,
    gold_comparison_remove,
    gold_comparison_set,
)
from feedback.gold.marking import GoldRequest, gold_remove, gold_set
from feedback.gold.reads import PersonAccuracy, gold_items, gold_people, gold_resume
from learnportal_protocol.errors import LearnError, not_found
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request

JSON = "application/json"
CURSOR_SALT = "feedback.gold.cursor"
MANAGERS_ONLY = OpenApiResponse(description="only managers and site admins")
NO_TURN = OpenApiResponse(description="no such turn in the project, or it is no gold item")


class GoldMarkView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Mark a turn as a gold item with its known answers (replacing any it had)",
        request={JSON: GoldRequest},
        responses={
            200: StoredGold,
            400: OpenApiResponse(description="an answer refused (each named)"),
            403: MANAGERS_ONLY,
            404: NO_TURN,
        },
    )
    def put(self, request: Request, pk: int) -> Response:
        body = parse_body(GoldRequest, request.body or b"{}")
        principal = principal_in(principal_of(request), body.project)
        gold = gold_set(principal, pk, body)
        return Response(StoredGold.of(gold).model_dump(mode="json"))

    @extend_schema(
        summary="Take the gold mark off a turn",
        request=None,
        responses={204: OpenApiResponse(description="taken off"), 403: MANAGERS_ONLY, 404: NO_TURN},
    )
    def delete(self, request: Request, pk: int) -> Response:
        gold_remove(principal_of(request), pk)
        return Response(status=204)


NO_COMPARISON = OpenApiResponse(
    description="no such comparison in the project, or it is no gold item"
)


class GoldComparisonView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Mark a comparison as gold with its known best candidate (replacing any)",
        request={JSON: GoldComparisonRequest},
        responses={
            200: StoredGoldComparison,
            400: OpenApiResponse(description="`best` is no candidate of the comparison"),
            403: MANAGERS_ONLY,
            404: NO_COMPARISON,
        },
    )
    def put(self, request: Request, comparison: int) -> Response:
        body = parse_body(GoldComparisonRequest, request.body or b"{}")
        principal = principal_in(principal_of(request), body.project)
        gold = gold_comparison_set(principal, comparison, body)
        return Response(StoredGoldComparison.of(gold).model_dump(mode="json"))

    @extend_schema(
        summary="Take the gold mark off a comparison",
        request=None,
        responses={
            204: OpenApiResponse(description="taken off"),
            403: MANAGERS_ONLY,
            404: NO_COMPARISON,
        },
    )
    def delete(self, request: Request, comparison: int) -> Response:
        gold_comparison_remove(principal_of(request), comparison)
        return Response(status=204)


class GoldQuery(QueryModel):
    cursor: str = Field(default="", max_length=200, description="opaque: from a page's next")
    limit: QueryInt = Field(default=50, ge=1, le=500, description="gold items a page")


class GoldListView(APIView):
    parser_classes = []

    @extend_schema(
        summary="The project's gold items, newest first",
        parameters=query_parameters(GoldQuery),
        responses={
            200: GoldPage,
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="a cursor of no page"),
        },
    )
    def get(self, request: Request) -> Response:
        principal = principal_of(request)
        query = parse_query(GoldQuery, request.query_params)
        try:
            cursor = id_of_signed(query.cursor, CURSOR_SALT)
        except LearnError as error:
            raise not_found(error.message, error.details) from None
        found = gold_items(principal, limit=query.limit, cursor=cursor)
        shown = found[: query.limit]
        following = signed_id(shown[-1].pk, CURSOR_SALT) if len(found) > query.limit else None
        page = GoldPage(results=[StoredGold.of(gold) for gold in shown], next=following)
        return Response(page.model_dump(mode="json"))


class GoldPeopleView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Each person's accuracy on gold items, and whether their queue is paused",
        responses={200: GoldPeople, 403: MANAGERS_ONLY},
    )
    def get(self, request: Request) -> Response:
        people = gold_people(principal_of(request))
        answer = GoldPeople(results=[PersonGold.of(person) for person in people])
        return Response(answer.model_dump(mode="json"))


class GoldResumeView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Resume a person's paused queue",
        request=None,
        responses={
            200: PersonGold,
            403: MANAGERS_ONLY,
            409: OpenApiResponse(description="their queue is not paused"),
        },
    )
    def post(self, request: Request, username: str) -> Response:
        principal = principal_of(request)
        gold_resume(principal, username)
        person = next(
            (p for p in gold_people(principal) if p.annotator == username),
            PersonAccuracy(username, 0, 0, 0, None, None),
        )
        return Response(PersonGold.of(person).model_dump(mode="json"))
