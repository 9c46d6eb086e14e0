"""`/api/webhooks/`: admins register, list and remove endpoints, read each one's delivery log
and redeliver; the secret is in the answer that creates the endpoint, and never again. Each view
reads and writes the endpoints of the project the request acts in (`?project=`, as every REST
view: core.projects.selection); another project's endpoint is not found."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.accounts.roles import Action
from core.inputs import query_parameters
from core.projects.selection import project_pk
from learnportal_protocol.models import StrictModel
from learnportal_protocol.wire import parse_body
from webhooks import services
from webhooks.answers import (
    DeliveryAnswer,
    DeliveryList,
    EndpointAnswer,
    EndpointCreated,
    EndpointList,
)
from webhooks.catalogue import Event
from webhooks.log import DeliveryLogQuery, log_page, parse_log_query

if TYPE_CHECKING:
    from rest_framework.request import Request

    from webhooks.models import Endpoint

ADMINS_ONLY = OpenApiResponse(description="only admins manage webhooks")
NO_ENDPOINT = OpenApiResponse(description="no such endpoint (or delivery)")


class EndpointRequest(StrictModel):
    url: str = Field(
        max_length=services.URL_LENGTH,
        pattern=r"^https?://[^/?#\s]+",
        description="http(s) on a host whose every address is public "
        "(any host with LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE=1); redirects are not followed",
    )
    events: list[Event] = Field(min_length=1)
    description: str = Field(default="", max_length=services.DESCRIPTION_LENGTH)


class AdminsView(APIView):
    """Every webhook view: admins only; `self.project`, the id of the project it acts in."""

    project: int

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        principal = principal_of(request)
        principal.require(Action.MANAGE_WEBHOOKS)
        self.project = project_pk(principal.project)


class OneEndpointView(AdminsView):
    """A view under /api/webhooks/<endpoint_id>/: `self.endpoint` (of the project), or
    `not_found`."""

    endpoint: Endpoint

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self.endpoint = services.endpoint_get(kwargs["endpoint_id"], project=self.project)


class WebhooksView(AdminsView):
    parser_classes = []

    @extend_schema(
        operation_id="webhooks_list",
        summary="List webhook endpoints (without their secrets)",
        responses={200: EndpointList, 403: ADMINS_ONLY},
    )
    def get(self, request: Request) -> Response:
        answer = EndpointList.of(services.endpoints_list(project=self.project))
        return Response(answer.model_dump(mode="json"))

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook endpoint; the answer holds its secret, shown only once",
        request={"application/json": EndpointRequest},
        responses={
            201: EndpointCreated,
            400: OpenApiResponse(description="a bad field, or a URL on a non-public address"),
            403: ADMINS_ONLY,
            409: OpenApiResponse(
                description="an endpoint already sends one of these events to this URL"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        body = parse_body(EndpointRequest, request.body or b"{}")
        endpoint, _ = services.endpoint_register(
            project=self.project,
            url=body.url,
            events=list(body.events),
            description=body.description,
            actor=principal_of(request).name,
        )
        return Response(EndpointCreated.of(endpoint).model_dump(mode="json"), status=201)


class WebhookView(OneEndpointView):
    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="One webhook endpoint (without its secret)",
        responses={200: EndpointAnswer, 403: ADMINS_ONLY, 404: NO_ENDPOINT},
    )
    def get(self, request: Request, endpoint_id: int) -> Response:
        return Response(EndpointAnswer.of(self.endpoint).model_dump(mode="json"))

    @extend_schema(
        operation_id="webhooks_destroy",
        summary="Remove a webhook endpoint, its outbox and its log",
        responses={204: None, 403: ADMINS_ONLY, 404: NO_ENDPOINT},
    )
    def delete(self, request: Request, endpoint_id: int) -> Response:
        services.endpoint_delete(self.endpoint)
        return Response(status=204)


class DeliveriesView(OneEndpointView):
    @extend_schema(
        operation_id="webhooks_deliveries_list",
        summary="An endpoint's delivery log, newest first, by state, a page at a time",
        parameters=query_parameters(DeliveryLogQuery),
        responses={
            200: DeliveryList,
            400: OpenApiResponse(description="a bad state, limit or cursor"),
            403: ADMINS_ONLY,
            404: NO_ENDPOINT,
        },
    )
    def get(self, request: Request, endpoint_id: int) -> Response:
        query = parse_log_query(request.query_params)
        rows, cursor = log_page(self.endpoint, query)
        following = None
        if cursor is not None:
            params = urlencode(query.as_params(cursor=cursor))
            following = request.build_absolute_uri(f"{request.path}?{params}")
        return Response(DeliveryList.of(rows, following).model_dump(mode="json"))


class RedeliverView(OneEndpointView):
    parser_classes = []

    @extend_schema(
        operation_id="webhooks_redeliver",
        summary="Send a delivery again, with the same webhook-id, as soon as the worker can",
        request=None,
        responses={
            202: DeliveryAnswer,
            403: ADMINS_ONLY,
            404: NO_ENDPOINT,
            409: OpenApiResponse(description="a delivery not attempted yet"),
        },
    )
    def post(self, request: Request, endpoint_id: int, delivery_id: int) -> Response:
        delivery = services.redeliver(self.endpoint, delivery_id)
        return Response(DeliveryAnswer.of(delivery).model_dump(mode="json"), status=202)
