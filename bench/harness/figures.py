"""The arithmetic of timings, one copy: percentiles by nearest rank, best of n, latency figures."""

from __future__ import annotations

import math
import statistics
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The value at quantile `q` (0-1) by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def latency(seconds: Sequence[float]) -> dict[str, Any]:
    """Count, median and 95th percentile of request times, in ms."""
    return {
        "n": len(seconds),
        "ms_p50": 1000 * statistics.median(seconds) if seconds else math.nan,
        "ms_p95": 1000 * percentile(seconds, 0.95) if seconds else math.nan,
    }


def best_of(repeats: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of `repeats` calls in seconds, and the last call's result."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result
