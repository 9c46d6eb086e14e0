"""`/api/queue-assignments/`: which part of a project's queue is kept for whom
(docs/contract.md, "Quality: annotator insight and assignments"). Managers and site admins
only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.projects.selection import principal_in
from feedback.assignments.answers import AssignmentList, StoredAssignment
from feedback.assignments.rules import (
    AssignmentRequest,
    assignment_add,
    assignment_change,
    assignment_remove,
    assignments_read,
)
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request

JSON = "application/json"
MANAGERS_ONLY = OpenApiResponse(description="only the project's managers and site admins")
TAKEN = OpenApiResponse(description="that part of the queue is assigned already")


class AssignmentsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="The parts of the project's queue kept for named people",
        responses={200: AssignmentList, 403: MANAGERS_ONLY},
    )
    def get(self, request: Request) -> Response:
        found = assignments_read(principal_of(request))
        answer = AssignmentList(results=[StoredAssignment.of(a) for a in found])
        return Response(answer.model_dump(mode="json"))

    @extend_schema(
        summary="Keep a component's turns (or the whole queue) for named members",
        request={JSON: AssignmentRequest},
        responses={
            201: StoredAssignment,
            400: OpenApiResponse(description="a field refused, or someone named is no member"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such project"),
            409: TAKEN,
        },
    )
    def post(self, request: Request) -> Response:
        body = parse_body(AssignmentRequest, request.body or b"{}")
        made = assignment_add(principal_in(principal_of(request), body.project), body)
        return Response(StoredAssignment.of(made).model_dump(mode="json"), status=201)


class AssignmentView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Replace an assignment's component and people",
        request={JSON: AssignmentRequest},
        responses={
            200: StoredAssignment,
            400: OpenApiResponse(description="a field refused, or someone named is no member"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such assignment in the project"),
            409: TAKEN,
        },
    )
    def put(self, request: Request, pk: int) -> Response:
        body = parse_body(AssignmentRequest, request.body or b"{}")
        changed = assignment_change(principal_in(principal_of(request), body.project), pk, body)
        return Response(StoredAssignment.of(changed).model_dump(mode="json"))

    @extend_schema(
        summary="Delete an assignment: its part of the queue is open to everyone again",
        request=None,
        responses={
            204: OpenApiResponse(description="deleted"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such assignment in the project"),
        },
    )
    def delete(self, request: Request, pk: int) -> Response:
        assignment_remove(principal_of(request), pk)
        return Response(status=204)
