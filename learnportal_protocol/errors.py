"""Transport-agnostic protocol errors; each edge turns them into one `learn/error` envelope."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from learnportal_protocol.ids import new_message_id, now


class ErrorCode(StrEnum):
    INVALID = "invalid"
    UNKNOWN_TYPE = "unknown_type"
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    STRATEGY_NOT_ALLOWED = "strategy_not_allowed"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    TOO_LARGE = "too_large"
    QUOTA_EXCEEDED = "quota_exceeded"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    NOT_IMPLEMENTED = "not_implemented"


HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.INVALID: 400,
    ErrorCode.UNKNOWN_TYPE: 400,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.STRATEGY_NOT_ALLOWED: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.CONFLICT: 409,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.QUOTA_EXCEEDED: 429,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.NOT_IMPLEMENTED: 501,
}

# The codes whose envelope may say, in `retry_after`, how many seconds to wait before retrying.
RETRYABLE = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE})
# The shortest wait a refusal names: a client told 0 retries at once, into the same refusal.
MIN_RETRY_AFTER = 1  # seconds

Loc = Sequence[str | int]
# A refusal's message, and each of its details' texts, may quote what was sent (a path, a
# name): never more than this many characters of it, so that no reply is larger than its bounds.
TEXT_LENGTH = 1000


def cut(text: str, length: int = TEXT_LENGTH) -> str:
    """`text` as a refusal quotes it: at most `length` characters, and `...` if it was longer."""
    return text if len(text) <= length else f"{text[:length]}..."


def bounded(message: str, details: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """A refusal's message and details, each text in them cut to TEXT_LENGTH."""
    return cut(message), [
        {
            **d,
            "loc": [part if isinstance(part, int) else cut(str(part)) for part in d["loc"]],
            "msg": cut(str(d["msg"])),
        }
        for d in details
    ]


class LearnError(Exception):
    """A refused request. Raising it anywhere in a service rolls back everything it did."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        details: list[dict[str, Any]] | None = None,
        *,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []
        self.retry_after = None if retry_after is None else max(MIN_RETRY_AFTER, retry_after)

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.code]

    def envelope(self, req_id: str = "") -> dict[str, Any]:
        return error_envelope(
            self.code, self.message, self.details, req_id=req_id, retry_after=self.retry_after
        )


def detail(loc: Loc, msg: str) -> dict[str, Any]:
    return {"loc": list(loc), "msg": msg}


def error_envelope(
    code: ErrorCode,
    message: str,
    details: list[dict[str, Any]] | None = None,
    *,
    req_id: str = "",
    retry_after: int | None = None,
) -> dict[str, Any]:
    message, details = bounded(message, details or [])
    envelope = {
        "type": "learn/error",
        "id": new_message_id(),
        "version": "1.0",
        "ts": now(),
        "req_id": req_id,
        "code": code.value,
        "message": message,
        "details": details,
    }
    if retry_after is not None and code in RETRYABLE:
        # An extension of the contract's envelope (docs/extensions.md): a WebSocket frame has no
        # Retry-After header.
        envelope["retry_after"] = retry_after
    return envelope


def invalid(message: str, details: list[dict[str, Any]] | None = None) -> LearnError:
    return LearnError(ErrorCode.INVALID, message, details)


def forbidden(message: str, details: list[dict[str, Any]] | None = None) -> LearnError:
    return LearnError(ErrorCode.FORBIDDEN, message, details)


def conflict(message: str, details: list[dict[str, Any]] | None = None) -> LearnError:
    return LearnError(ErrorCode.CONFLICT, message, details)


def not_found(message: str, details: list[dict[str, Any]] | None = None) -> LearnError:
    return LearnError(ErrorCode.NOT_FOUND, message, details)
