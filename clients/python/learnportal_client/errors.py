"""The one error the client raises: a refusal of the host, or no answer from it."""

from __future__ import annotations

from typing import Any

# The codes a client may retry with the same ids: the host changed nothing and said when to
# come back (`Retry-After`, or `retry_after` in a socket's error frame).
RETRYABLE_CODES = frozenset({"rate_limited", "unavailable"})
# No answer at all (refused connection, timeout, a proxy's 502): the request may or may not
# have arrived, so only a request that is safe to send twice is retried.
UNREACHABLE = "unreachable"


class LearnError(Exception):
    """A `learn/error` of the host (`code`, `message`, `details`), or `unreachable`.

    `code` is one of the contract's codes (`invalid`, `forbidden`, `conflict`, `too_large`,
    `rate_limited`, `unavailable`, ...), which compare equal to the server's `ErrorCode`.
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
        return self.code in RETRYABLE_CODES

    @classmethod
    def of_envelope(
        cls, body: dict[str, Any], *, status: int | None = None, retry_after: float | None = None
    ) -> LearnError:
        """The error a `learn/error` envelope says (over HTTP, `Retry-After` may say the wait)."""
        if retry_after is None and isinstance(body.get("retry_after"), int | float):
            retry_after = float(body["retry_after"])
        details = body.get("details")
        return cls(
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
