"""Every HTTP error, DRF's own included, answers with the one `learn/error` envelope."""

from __future__ import annotations

import math
from typing import Any

from django.db import DatabaseError, IntegrityError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response

from learnportal.protocol.errors import ErrorCode, LearnError, detail
from learnportal.ratelimit import rate_limited

DRF_CODES: list[tuple[type[exceptions.APIException], ErrorCode]] = [
    (exceptions.NotAuthenticated, ErrorCode.UNAUTHENTICATED),
    (exceptions.AuthenticationFailed, ErrorCode.UNAUTHENTICATED),
    (exceptions.PermissionDenied, ErrorCode.FORBIDDEN),
    (exceptions.NotFound, ErrorCode.NOT_FOUND),
    (exceptions.ParseError, ErrorCode.INVALID),
    (exceptions.UnsupportedMediaType, ErrorCode.INVALID),
    (exceptions.ValidationError, ErrorCode.INVALID),
]


def learn_error_response(
    error: LearnError, req_id: str = "", status: int | None = None
) -> Response:
    response = Response(error.envelope(req_id), status=status or error.http_status)
    if error.retry_after is not None:
        response["Retry-After"] = str(error.retry_after)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, LearnError):
        return learn_error_response(exc)
    if isinstance(exc, Http404):
        return learn_error_response(LearnError(ErrorCode.NOT_FOUND, "Not found."))
    if isinstance(exc, DatabaseError) and not isinstance(exc, IntegrityError):
        # The database is busy or down (also while authenticating): retry, never a 500.
        return learn_error_response(
            LearnError(
                ErrorCode.UNAVAILABLE, "The database is busy or down; retry shortly.", retry_after=1
            )
        )
    if isinstance(exc, exceptions.Throttled):
        return learn_error_response(rate_limited(max(1, math.ceil(exc.wait or 1))))
    if not isinstance(exc, exceptions.APIException):
        return None
    code = next((code for kind, code in DRF_CODES if isinstance(exc, kind)), ErrorCode.INVALID)
    details = _details(exc.detail) if isinstance(exc, exceptions.ValidationError) else []
    message = _message(exc, details)
    response = learn_error_response(LearnError(code, message, details), status=exc.status_code)
    if code is ErrorCode.UNAUTHENTICATED:
        response["WWW-Authenticate"] = "Bearer"
    return response


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
