"""`POST /v1/traces`: OTLP/HTTP, where an instrumented agent's exporter sends its spans with the
agent's (or environment's) bearer token; the project is the token's. In the wiring, as
`/api/learn/` is: its tool steps are experiences, chosen under refinement's routing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from feedback.traces.ingest import traces_ingest
from feedback.traces.otlp import answer, decode
from refinement.store import behaviour_policy

if TYPE_CHECKING:
    from rest_framework.request import Request

MESSAGE_LENGTH = 1000  # the partial_success's error_message: its first lines


class OtlpTracesView(APIView):
    parser_classes = []

    @extend_schema(exclude=True)  # protobuf or JSON of OTLP's own schema, not this API's
    def post(self, request: Request) -> HttpResponse:
        principal = principal_of(request)
        encoding = request.headers.get("Content-Encoding", "")
        message = decode(
            request.body, request.content_type, encoding, settings.LEARNPORTAL_MAX_BODY_BYTES
        )
        rejected, why = traces_ingest(principal=principal, request=message, policy=behaviour_policy)
        body, media = answer(request.content_type, rejected, "; ".join(why)[:MESSAGE_LENGTH])
        return HttpResponse(body, content_type=media)
