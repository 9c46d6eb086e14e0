"""`/api/learn/`: the HTTP adapter over the one dispatch path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of, working_bearer_principal
from core.projects.selection import PROJECT_FIELD, principal_in
from learnportal import dispatch
from learnportal.api.errors import envelope_response, learn_error_response
from learnportal.api.negotiation import FastJSONRenderer
from learnportal.api.schema import LEARN_REQUEST, LEARN_RESPONSE
from learnportal_protocol import Capability
from learnportal_protocol.errors import ErrorCode, LearnError

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse
    from django.http.response import HttpResponseBase
    from rest_framework.request import Request

    from core.accounts.principals import Principal


class LearnView(APIView):
    parser_classes = []  # the body is read raw and parsed strictly by the protocol core
    renderer_classes = [FastJSONRenderer]
    counted_by_dispatch = ("POST",)  # the rate limit counts a POST once, in dispatch

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        """A POST with a bearer token that works goes straight to `learn`, as DRF's dispatch
        would take it (the bearer authenticator first, IsAuthenticated, no throttle as dispatch
        counts the request, JSON whatever the Accept header) without DRF's request wrapper,
        negotiation and loops, which cost about as much as a small learn/* request itself
        (BENCHMARKS.md, the hot path). Every other request goes DRF's way: GET, a session with
        its CSRF check, and a missing, malformed or refused token, which DRF answers with the
        error envelope."""
        if request.method == "POST":
            try:
                principal = working_bearer_principal(request)
            except DatabaseError:
                principal = None  # DRF's way looks again and answers with the envelope
            if principal is not None:
                try:  # in the project `?project=` names, as every other view's principal
                    principal = principal_in(principal, request.GET.get(PROJECT_FIELD))
                except LearnError as error:
                    return learn_error_response(error)
                response = self.learn(principal, request)
                for header, value in self.default_response_headers.items():
                    response[header] = value  # as DRF's finalize_response: Allow
                return response
        return super().dispatch(request, *args, **kwargs)

    @extend_schema(
        summary="Describe the learning capability",
        responses={200: Capability},
    )
    def get(self, request: Request) -> Response:
        capability = Capability(max_batch=settings.LEARNPORTAL_MAX_BATCH)
        return Response(capability.model_dump(mode="json"))

    @extend_schema(
        summary="Send one learn/* request envelope",
        description="The body is one request envelope of the learning spec; the answer is the "
        "matching response envelope, or a learn/error envelope with the HTTP status of its code.",
        request={"application/json": LEARN_REQUEST},
        responses={
            200: LEARN_RESPONSE,
            400: OpenApiResponse(
                description="not JSON, a field out of the spec's rules, or a "
                "type that is not a learn/* request"
            ),
            403: OpenApiResponse(
                description="the role may not send this, or an adapt "
                "strategy this host does not allow"
            ),
            404: OpenApiResponse(description="an unknown refinement_id, component or plan"),
            409: OpenApiResponse(
                description="a stale old_value, an id reused with other "
                "content, or a rollback of something rolled back already"
            ),
            413: OpenApiResponse(
                description="more items than LEARNPORTAL_MAX_BATCH, or a body over the size limit"
            ),
            429: OpenApiResponse(
                description="the experience limit with LEARNPORTAL_EXPERIENCE_OVERFLOW=reject, "
                "or too many requests (with Retry-After)"
            ),
        },
        examples=[
            OpenApiExample(
                "Store an experience",
                request_only=True,
                value={
                    "type": "learn/experience/req",
                    "id": "le1",
                    "experiences": [
                        {
                            "experience_id": "exp_abc",
                            "action": {"component_name": "click", "input": {"selector": "#btn"}},
                            "reward": 0.5,
                        }
                    ],
                },
            )
        ],
    )
    def post(self, request: Request) -> HttpResponse:
        return self.learn(principal_of(request), request)

    @staticmethod
    def learn(principal: Principal, request: Request | HttpRequest) -> HttpResponse:
        try:
            body = request.body
        except RequestDataTooBig:
            return learn_error_response(
                LearnError(ErrorCode.TOO_LARGE, "The request body is over the size limit.")
            )
        reply = dispatch.dispatch(principal, body)
        return envelope_response(reply.body, reply.status, reply.retry_after)
