"""The errors the client raises: `LearnError`, and under it one subclass for each code.

A refusal of the host is the subclass of its `learn/error` code (`NotFoundError` for
`not_found`, ...: the codes are the protocol's `ErrorCode`), and the client's own two codes have
theirs: `UnreachableError` (no answer at all) and `InvalidReplyError` (an answer that is not a
learn/* reply). `except LearnError` catches every one of them, and `.code` says which it is.
"""

from __future__ import annotations

from typing import Any, ClassVar

from learnportal_protocol.errors import RETRYABLE, ErrorCode

# No answer at all (refused connection, timeout, a proxy's 502): the request may or may not
# have arrived, so only a request that is safe to send twice is retried.
UNREACHABLE = "unreachable"
# An answer that is not the learn/* reply asked for (not JSON, another type, another req_id).
INVALID_REPLY = "invalid_reply"


class LearnError(Exception):
    """A `learn/error` of the host (`code`, `message`, `details`), or a code of the client's.

    `code` is one of the contract's codes (`invalid`, `forbidden`, `conflict`, `too_large`,
    `rate_limited`, `unavailable`, ...), which compare equal to the server's `ErrorCode`, or
    `unreachable` or `invalid_reply`. The client raises the code's subclass (`LearnError.of`);
    a code it does not know (a newer host's) is a plain LearnError.
    """

    def __init__(
        self,
        code: str,
        message: str,
        details: list[dict[str, Any]] | None = None,
        *,
        status: int | None = None,
        req_id: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details or []
        self.status = status
        self.req_id = req_id
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Whether the host changed nothing and may be asked again (`rate_limited`, `unavailable`)."""
        return self.code in RETRYABLE

    @staticmethod
    def of(
        code: str,
        message: str,
        details: list[dict[str, Any]] | None = None,
        *,
        status: int | None = None,
        req_id: str = "",
        retry_after: float | None = None,
    ) -> LearnError:
        """The error of `code`: an instance of its subclass, or a LearnError for an unknown code."""
        options: dict[str, Any] = {"status": status, "req_id": req_id, "retry_after": retry_after}
        kind = ERRORS.get(code)
        if kind is None:
            return LearnError(code, message, details, **options)
        return kind(message, details, **options)

    @classmethod
    def of_envelope(
        cls, body: dict[str, Any], *, status: int | None = None, retry_after: float | None = None
    ) -> LearnError:
        """The error a `learn/error` envelope says (over HTTP, `Retry-After` may say the wait)."""
        if retry_after is None and isinstance(body.get("retry_after"), int | float):
            retry_after = float(body["retry_after"])
        details = body.get("details")
        return LearnError.of(
            str(body.get("code", "")),
            str(body.get("message", "")),
            details if isinstance(details, list) else [],
            status=status,
            req_id=str(body.get("req_id", "")),
            retry_after=retry_after,
        )

    def item_indexes(self, field: str) -> set[int]:
        """The items of batch `field` that `details` names (`loc` `[field, index, ...]`)."""
        return {
            loc[1]
            for loc in (d.get("loc") for d in self.details)
            if isinstance(loc, list) and len(loc) > 1 and loc[0] == field
            if isinstance(loc[1], int)
        }


class _CodedError(LearnError):
    """A LearnError whose class says its code: made without one, `NotFoundError("no plan")`."""

    CODE: ClassVar[str]

    def __init__(
        self,
        message: str = "",
        details: list[dict[str, Any]] | None = None,
        *,
        status: int | None = None,
        req_id: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(
            self.CODE, message, details, status=status, req_id=req_id, retry_after=retry_after
        )


class InvalidError(_CodedError):
    """`invalid` (400): not JSON, or a field out of the spec's rules; `details` names each."""

    CODE = ErrorCode.INVALID.value


class UnknownTypeError(_CodedError):
    """`unknown_type` (400): a `type` that is not a learn/* request."""

    CODE = ErrorCode.UNKNOWN_TYPE.value


class UnauthenticatedError(_CodedError):
    """`unauthenticated` (401, or a socket closed with 4401): no token, or a revoked one."""

    CODE = ErrorCode.UNAUTHENTICATED.value


class ForbiddenError(_CodedError):
    """`forbidden` (403): the token's role may not do this."""

    CODE = ErrorCode.FORBIDDEN.value


class StrategyNotAllowedError(_CodedError):
    """`strategy_not_allowed` (403): an adapt strategy this host does not allow."""

    CODE = ErrorCode.STRATEGY_NOT_ALLOWED.value


class NotFoundError(_CodedError):
    """`not_found` (404): an unknown refinement, component or plan."""

    CODE = ErrorCode.NOT_FOUND.value


class ConflictError(_CodedError):
    """`conflict` (409): a stale `old_value`, an id reused with other content, a second rollback."""

    CODE = ErrorCode.CONFLICT.value


class TooLargeError(_CodedError):
    """`too_large` (413): more items than the host's `max_batch`, or a body over its size limit."""

    CODE = ErrorCode.TOO_LARGE.value


class QuotaExceededError(_CodedError):
    """`quota_exceeded` (429): the host's experience limit is reached and it rejects more."""

    CODE = ErrorCode.QUOTA_EXCEEDED.value


class RateLimitedError(_CodedError):
    """`rate_limited` (429): too many requests; `retry_after` says when to come back."""

    CODE = ErrorCode.RATE_LIMITED.value


class UnavailableError(_CodedError):
    """`unavailable` (503, or a proxy's 502/504): the host's database is busy or down."""

    CODE = ErrorCode.UNAVAILABLE.value


class UnimplementedError(_CodedError):
    """`not_implemented` (501): a message the host does not carry out."""

    CODE = ErrorCode.NOT_IMPLEMENTED.value


class UnreachableError(_CodedError):
    """`unreachable`, the client's own: no answer (refused connection, timeout, closed socket)."""

    CODE = UNREACHABLE


class InvalidReplyError(_CodedError):
    """`invalid_reply`, the client's own: an answer that is not the learn/* reply asked for."""

    CODE = INVALID_REPLY


# Each code's subclass: every ErrorCode of the protocol, and the client's two.
ERRORS: dict[str, type[_CodedError]] = {
    kind.CODE: kind
    for kind in (
        InvalidError,
        UnknownTypeError,
        UnauthenticatedError,
        ForbiddenError,
        StrategyNotAllowedError,
        NotFoundError,
        ConflictError,
        TooLargeError,
        QuotaExceededError,
        RateLimitedError,
        UnavailableError,
        UnimplementedError,
        UnreachableError,
        InvalidReplyError,
    )
}
