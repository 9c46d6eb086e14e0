"""When to send a request again, and after how long."""

from __future__ import annotations

import time
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


@dataclass(frozen=True)
class Deadline:
    """When one request must be over, every try and every wait between them included.

    `seconds=None` is no deadline: the request ends when `Retry` gives up. A try is given at most
    the time left, and a wait that would leave none is not waited: the last error is raised.
    """

    at: float | None

    @classmethod
    def after(cls, seconds: float | None) -> Deadline:
        return cls(None if seconds is None else time.monotonic() + seconds)

    def left(self) -> float | None:
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def allows(self, wait: float) -> bool:
        """Whether a try after waiting `wait` seconds would still start before the deadline."""
        left = self.left()
        return left is None or wait < left

    def cap(self, timeout: float) -> float:
        """A try's own timeout, cut to the time left."""
        left = self.left()
        return timeout if left is None else min(timeout, left)


def checked_deadline(seconds: float | None) -> float | None:
    """A client's `deadline` argument: None, or seconds above 0."""
    if seconds is not None and not seconds > 0:
        raise ValueError(f"deadline must be a number of seconds above 0, or None; got {seconds!r}")
    return seconds
