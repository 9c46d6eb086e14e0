"""Every HTTP error, DRF's own included, answers with the one `learn/error` envelope."""

from __future__ import annotations

import math
from typing import Any

import orjson
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    JsonResponse,
)
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from redis.exceptions import RedisError
from rest_framework import exceptions

from core.ratelimit import (
    address_key,
    drf_key,
    rate_limit_check,
    rate_limited,
    retry_after_for,
    was_counted,
)
from learnportal.dberrors import database_error, redis_error
from learnportal_protocol.errors import MIN_RETRY_AFTER, ErrorCode, LearnError, detail

DRF_CODES: list[tuple[type[exceptions.APIException], ErrorCode]] = [
    (exceptions.NotAuthenticated, ErrorCode.UNAUTHENTICATED),
    (exceptions.AuthenticationFailed, ErrorCode.UNAUTHENTICATED),
    (exceptions.PermissionDenied, ErrorCode.FORBIDDEN),
    (exceptions.NotFound, ErrorCode.NOT_FOUND),
    (exceptions.ParseError, ErrorCode.INVALID),
    (exceptions.UnsupportedMediaType, ErrorCode.INVALID),
    (exceptions.ValidationError, ErrorCode.INVALID),
]


def envelope_response(
    body: dict[str, Any], status: int, retry_after: int | None = None
) -> HttpResponse:
    """A learn/* envelope over HTTP, with Retry-After when it says to wait.

    JSON by orjson, rendered here whatever the view's renderers: a DRF Response is rendered
    after the view, and under ASGI Django makes that one more hop to a sync thread, which costs
    about as much as a small learn/* request itself (BENCHMARKS.md, the hot path).
    """
    response = HttpResponse(orjson.dumps(body), status=status, content_type="application/json")
    if retry_after is not None:
        with_retry_after(response, retry_after)
    return response


def with_retry_after(response: HttpResponse, retry_after: int) -> HttpResponse:
    """The one place that says Retry-After, for the envelopes and the pages' 429 alike."""
    response["Retry-After"] = str(retry_after)
    return response


def learn_error_response(
    error: LearnError, req_id: str = "", status: int | None = None
) -> HttpResponse:
    return envelope_response(error.envelope(req_id), status or error.http_status, error.retry_after)


def exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    request = context.get("request")
    if (
        isinstance(exc, exceptions.APIException)
        and request is not None
        and not was_counted(request)
    ):
        # DRF authenticates and checks permissions before its throttle runs: a request refused
        # there (no credential, a bad or revoked token, a failed CSRF check) is counted here.
        retry_after = retry_after_for(_refused_key(request))
        if retry_after is not None:
            return learn_error_response(rate_limited(retry_after))
    if isinstance(exc, LearnError):
        return learn_error_response(exc)
    if isinstance(exc, RequestDataTooBig):
        # A view read a body over DATA_UPLOAD_MAX_MEMORY_SIZE: Django would answer an HTML 400.
        return learn_error_response(
            LearnError(ErrorCode.TOO_LARGE, "The request body is over the size limit.")
        )
    if isinstance(exc, Http404):
        return learn_error_response(LearnError(ErrorCode.NOT_FOUND, "Not found."))
    if isinstance(exc, DatabaseError):
        # Also while authenticating, before any view runs: never a 500.
        return learn_error_response(database_error(exc, during=getattr(request, "path", "")))
    if isinstance(exc, RedisError):
        return learn_error_response(redis_error(exc, during=getattr(request, "path", "")))
    if isinstance(exc, exceptions.Throttled):
        # DRF sets `wait` in Throttled.__init__; its stubs leave the attribute out.
        wait: float | None = exc.wait  # type: ignore[attr-defined]
        return learn_error_response(rate_limited(math.ceil(wait or MIN_RETRY_AFTER)))
    if not isinstance(exc, exceptions.APIException):
        return None
    code = next((code for kind, code in DRF_CODES if isinstance(exc, kind)), ErrorCode.INVALID)
    details = _details(exc.detail) if isinstance(exc, exceptions.ValidationError) else []
    message = _message(exc, details)
    response = learn_error_response(LearnError(code, message, details), status=exc.status_code)
    if code is ErrorCode.UNAUTHENTICATED:
        response["WWW-Authenticate"] = "Bearer"
    return response


def _refused_key(request: Any) -> str:
    try:
        return drf_key(request)
    except (exceptions.APIException, DatabaseError):  # refused before it was authenticated
        return address_key(request)


def _message(exc: exceptions.APIException, details: list[dict[str, Any]]) -> str:
    if details:
        return "; ".join(
            f"{'.'.join(map(str, d['loc'])) or 'body'}: {d['msg']}" for d in details[:3]
        )
    return str(exc.detail)


def _details(data: Any, loc: tuple[str | int, ...] = ()) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        return [item for key, value in data.items() for item in _details(value, (*loc, key))]
    if isinstance(data, list):
        if all(isinstance(item, str) for item in data):
            return [detail(loc, str(item)) for item in data]
        return [item for index, value in enumerate(data) for item in _details(value, (*loc, index))]
    return [detail(loc, str(data))]


@csrf_exempt  # it changes nothing, and a token client's POST carries no CSRF token
def api_not_found(request: HttpRequest) -> HttpResponse:
    """An /api/ URL that no view serves: the envelope, as JSON, never Django's HTML 404.

    A GET or HEAD that lacks only its trailing slash is redirected to it, as Django's
    APPEND_SLASH would do had this catch-all not matched first.
    """
    try:
        rate_limit_check(address_key(request))  # no DRF view, so no DRF throttle
    except LearnError as limited:
        return learn_error_response(limited)
    with_slash = f"{request.path_info}/"
    if request.method in {"GET", "HEAD"} and not request.path_info.endswith("/"):
        try:
            match = resolve(with_slash)
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            query = request.META.get("QUERY_STRING", "")
            return HttpResponsePermanentRedirect(with_slash + (f"?{query}" if query else ""))
    error = LearnError(
        ErrorCode.NOT_FOUND,
        f"No API endpoint at {request.path}.",
        [detail(["path"], "no such endpoint")],
    )
    return JsonResponse(error.envelope(), status=404)
