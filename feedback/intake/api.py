"""`/api/intake-rules/`: which turns a project's queue takes (docs/contract.md, "Quality:
intake rules"). Managers and site admins only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.projects.selection import principal_in
from feedback.intake.answers import RuleList, StoredRule
from feedback.intake.rules import (
    IntakeRuleRequest,
    rule_add,
    rule_change,
    rule_remove,
    rules_read,
)
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request

JSON = "application/json"
MANAGERS_ONLY = OpenApiResponse(description="only the project's managers and site admins")


class IntakeRulesView(APIView):
    parser_classes = []

    @extend_schema(
        summary="The project's intake rules, with the turns each let in",
        responses={200: RuleList, 403: MANAGERS_ONLY},
    )
    def get(self, request: Request) -> Response:
        rules = rules_read(principal_of(request))
        return Response(RuleList(results=[StoredRule.of(r) for r in rules]).model_dump(mode="json"))

    @extend_schema(
        summary="Add an intake rule: from now on the queue takes only what a rule takes",
        request={JSON: IntakeRuleRequest},
        responses={
            201: StoredRule,
            400: OpenApiResponse(description="a field refused"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such project"),
        },
    )
    def post(self, request: Request) -> Response:
        body = parse_body(IntakeRuleRequest, request.body or b"{}")
        rule = rule_add(principal_in(principal_of(request), body.project), body)
        return Response(StoredRule.of(rule).model_dump(mode="json"), status=201)


class IntakeRuleView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Replace an intake rule's fields",
        request={JSON: IntakeRuleRequest},
        responses={
            200: StoredRule,
            400: OpenApiResponse(description="a field refused"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such rule in the project"),
        },
    )
    def put(self, request: Request, pk: int) -> Response:
        body = parse_body(IntakeRuleRequest, request.body or b"{}")
        rule = rule_change(principal_in(principal_of(request), body.project), pk, body)
        return Response(StoredRule.of(rule).model_dump(mode="json"))

    @extend_schema(
        summary="Delete an intake rule (the turns it let in stay in)",
        request=None,
        responses={
            204: OpenApiResponse(description="deleted"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such rule in the project"),
        },
    )
    def delete(self, request: Request, pk: int) -> Response:
        rule_remove(principal_of(request), pk)
        return Response(status=204)
