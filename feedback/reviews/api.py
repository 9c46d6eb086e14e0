"""`/api/reviews/`: a second pass over people's ratings (docs/contract.md, "Quality: reviews of
ratings"). `POST /api/reviews/next/` leases the next rating to review, `release/` gives it back,
`POST /api/reviews/` decides on one, `GET /api/reviews/` lists the decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.inputs import QueryInt, QueryModel, id_of_signed, parse_query, query_parameters, signed_id
from core.projects.selection import principal_in
from feedback.reviews.answers import ReviewCreated, ReviewLeased, ReviewPage
from feedback.reviews.decisions import ReviewRequest, review_record
from feedback.reviews.queue import review_next, review_release
from feedback.reviews.reads import reviews_read
from learnportal_protocol.errors import LearnError, not_found
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request

JSON = "application/json"
CURSOR_SALT = "feedback.reviews.cursor"
DECIDERS_ONLY = OpenApiResponse(description="only reviewers, managers and site admins review")


class ReviewsQuery(QueryModel):
    decision: Literal["", "accepted", "rejected", "amended"] = ""
    cursor: str = Field(default="", max_length=200, description="opaque: from a page's next")
    limit: QueryInt = Field(default=50, ge=1, le=500, description="reviews a page")


class ReviewsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="The reviews of ratings: an annotator's own ratings', or every one",
        parameters=query_parameters(ReviewsQuery),
        responses={200: ReviewPage, 404: OpenApiResponse(description="a cursor of no page")},
    )
    def get(self, request: Request) -> Response:
        principal = principal_of(request)
        query = parse_query(ReviewsQuery, request.query_params)
        try:
            cursor = id_of_signed(query.cursor, CURSOR_SALT)
        except LearnError as error:  # as the turn list's: a page it names none of
            raise not_found(error.message, error.details) from None
        page = reviews_read(principal, limit=query.limit, cursor=cursor, decision=query.decision)
        if page.next is not None:
            page = page.model_copy(update={"next": signed_id(int(page.next), CURSOR_SALT)})
        return Response(page.model_dump(mode="json"))

    @extend_schema(
        summary="Accept a person's rating, reject it with a reason, or amend it with your answers",
        request={JSON: ReviewRequest},
        responses={
            201: ReviewCreated,
            403: DECIDERS_ONLY,
            404: OpenApiResponse(description="no rating that counts has this feedback_id"),
            400: OpenApiResponse(description="a field refused (each named)"),
            409: OpenApiResponse(
                description="reviewed already, your own, or amended where you rated it"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        body = parse_body(ReviewRequest, request.body or b"{}")
        principal = principal_in(principal_of(request), body.project)
        reviewed = review_record(principal=principal, request=body)
        return Response(ReviewCreated.of(reviewed).model_dump(mode="json"), status=201)


class ReviewNextView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Lease the next rating to review (the one you hold, if any)",
        request=None,
        responses={
            200: ReviewLeased,
            204: OpenApiResponse(description="no rating left to review"),
            403: DECIDERS_ONLY,
        },
    )
    def post(self, request: Request) -> Response:
        held = review_next(principal_of(request))
        if held is None:
            return Response(status=204)
        return Response(ReviewLeased.of(held).model_dump(mode="json"))


class ReviewReleaseView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Give back the rating you hold for review",
        request=None,
        responses={
            204: OpenApiResponse(description="given back (or none held)"),
            403: DECIDERS_ONLY,
        },
    )
    def post(self, request: Request) -> Response:
        review_release(principal_of(request))
        return Response(status=204)
