"""A DDSketch-style quantile sketch: log-spaced buckets with a bounded relative error.

Every value is counted in bucket ceil(log_gamma(x)); a bucket's representative is within
`RELATIVE_ACCURACY` of every value in it, so any quantile read back is too. Pure numpy, no
Django: the sketch is stored as JSON in the component's stats row and merged per batch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

RELATIVE_ACCURACY = 0.005
GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY)
LOG_GAMMA = math.log(GAMMA)
MIN_POSITIVE = 1e-6  # smaller durations count as zero


class DurationSketch:
    __slots__ = ("bins", "zeros")

    def __init__(self, bins: dict[int, int] | None = None, zeros: int = 0) -> None:
        self.bins: dict[int, int] = bins or {}
        self.zeros = zeros

    @property
    def count(self) -> int:
        return self.zeros + sum(self.bins.values())

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DurationSketch:
        return cls(
            {int(k): int(v) for k, v in data.get("bins", {}).items()}, int(data.get("zeros", 0))
        )

    def to_json(self) -> dict[str, Any]:
        return {"zeros": self.zeros, "bins": {str(k): v for k, v in sorted(self.bins.items())}}

    def add(self, values: np.ndarray) -> None:
        values = np.asarray(values, dtype=np.float64)
        positive = values[values >= MIN_POSITIVE]
        self.zeros += int(values.size - positive.size)
        if positive.size == 0:
            return
        indexes = np.ceil(np.log(positive) / LOG_GAMMA).astype(np.int64)
        keys, counts = np.unique(indexes, return_counts=True)
        for key, count in zip(keys.tolist(), counts.tolist(), strict=True):
            self.bins[key] = self.bins.get(key, 0) + count

    def quantile(self, q: float) -> float:
        """The value at rank q*(n-1), interpolated between its neighbours as numpy's default."""
        total = self.count
        if total == 0:
            return 0.0
        rank = q * (total - 1)
        below, above = self._value_at(math.floor(rank)), self._value_at(math.ceil(rank))
        return below + (above - below) * (rank - math.floor(rank))

    def _value_at(self, rank: int) -> float:
        """The representative of the value with this 0-based rank in sorted order."""
        if rank < self.zeros:
            return 0.0
        seen = self.zeros
        for key in sorted(self.bins):
            seen += self.bins[key]
            if seen > rank:
                return 2.0 * GAMMA**key / (GAMMA + 1.0)
        return 2.0 * GAMMA ** max(self.bins) / (GAMMA + 1.0)
