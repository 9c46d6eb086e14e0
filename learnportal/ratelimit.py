"""A per-principal token bucket, kept in this process's memory.

Each server process limits on its own, so N processes allow N times the rate; that is the
point of a cheap guard against a runaway client, not a billing meter.
"""

from __future__ import annotations

import math
import threading
import time

from django.conf import settings

from learnportal.protocol.errors import ErrorCode, LearnError

_lock = threading.Lock()
_buckets: dict[str, tuple[float, float]] = {}


def rate_limit_check(key: str) -> None:
    rate = settings.LEARNPORTAL_RATE_LIMIT
    if rate <= 0:
        return
    burst = max(1.0, 2 * rate)
    now = time.monotonic()
    with _lock:
        tokens, last = _buckets.get(key, (burst, now))
        tokens = min(burst, tokens + (now - last) * rate)
        if tokens < 1.0:
            _buckets[key] = (tokens, now)
            retry_after = max(1, math.ceil((1.0 - tokens) / rate))
            raise LearnError(
                ErrorCode.RATE_LIMITED,
                f"Too many requests; at most {rate:g} a second. Retry after {retry_after} s.",
                retry_after=retry_after,
            )
        _buckets[key] = (tokens - 1.0, now)


def rate_limit_reset() -> None:
    with _lock:
        _buckets.clear()
