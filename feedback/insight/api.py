"""`GET /api/annotators/`: what each person's work in the project comes to over a period
(docs/contract.md, "Quality: annotator insight"). Reviewers, managers and site admins read
everyone's; an annotator their own."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.inputs import QueryModel, parse_query, query_parameters
from feedback.insight.answers import AnnotatorsAnswer, PersonFigures
from feedback.insight.reads import DAY, DEFAULT_DAYS, annotator_insight
from learnportal_protocol.models import Timestamp

if TYPE_CHECKING:
    from rest_framework.request import Request


class AnnotatorsQuery(QueryModel):
    since: Timestamp | None = Field(
        default=None,
        description=f"the period's start, epoch seconds (at or after); by default "
        f"{DEFAULT_DAYS} days before `until`",
    )
    until: Timestamp | None = Field(
        default=None,
        description="its end, epoch seconds (before); by default now; at or before `since`, "
        "an empty period",
    )

    def period(self, now: float) -> tuple[float, float]:
        """[since, until), the defaults filled in."""
        until = now if self.until is None else self.until
        return (until - DEFAULT_DAYS * DAY if self.since is None else self.since), until


class AnnotatorsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Each person's work over a period: items, time per item, skips, gold accuracy, "
        "reviews, agreement without them",
        parameters=query_parameters(AnnotatorsQuery),
        responses={
            200: AnnotatorsAnswer,
            400: OpenApiResponse(description="`since` or `until` is no time (each named)"),
            401: OpenApiResponse(description="no token or session, or a revoked token"),
            403: OpenApiResponse(
                description="only people who rate (their own row) and those "
                "who read the agreement (everyone's)"
            ),
        },
    )
    def get(self, request: Request) -> Response:
        principal = principal_of(request)
        since, until = parse_query(AnnotatorsQuery, request.query_params).period(time.time())
        people = annotator_insight(principal, since, until)
        answer = AnnotatorsAnswer(
            since=since, until=until, results=[PersonFigures.of(person) for person in people]
        )
        return Response(answer.model_dump(mode="json"))
