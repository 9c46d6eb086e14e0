"""When to send a request again, and after how long."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from learnportal_client.errors import UNREACHABLE, LearnError

# How a client or a session waits between tries: `time.sleep`, or `asyncio.sleep` awaited.
Sleep = TypeVar("Sleep", bound=Callable[[float], Any])


@dataclass(frozen=True)
class Retry:
    """Retries of `rate_limited` and `unavailable` (and of `unreachable`, where safe).

    The wait is the host's `Retry-After` when it gives one, else `backoff * 2**(attempt - 1)`,
    at most `max_wait` seconds; after `attempts` tries the last error is raised. A host's wait
    longer than `max_wait` is never cut short: the error is raised at once (its `retry_after`
    says when to come back), since an earlier try would only be refused again.
    """

    attempts: int = 6
    backoff: float = 0.5
    max_wait: float = 30.0

    def wait(self, error: LearnError, attempt: int, *, resend_safe: bool) -> float | None:
        """Seconds to wait before try `attempt + 1`, or None to give up with `error`."""
        if attempt >= self.attempts:
            return None
        if not (error.retryable or (error.code == UNREACHABLE and resend_safe)):
            return None
        if error.retry_after is not None:
            wait = max(error.retry_after, 0.0)
            return wait if wait <= self.max_wait else None
        return min(self.backoff * 2.0 ** (attempt - 1), self.max_wait)


NO_RETRY = Retry(attempts=1)
