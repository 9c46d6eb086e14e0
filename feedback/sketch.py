"""A DDSketch-style quantile sketch: log-spaced buckets with a bounded relative error.

Every duration counts in bucket ceil(log_gamma(x)); a bucket's representative is within
`RELATIVE_ACCURACY` of every value in it, so any quantile read back is too. The buckets are one
dense int64 array from `offset`, stored as bytes in the component's stats row and merged per
batch with numpy: no per-bucket Python work. Pure numpy, no Django.
"""

from __future__ import annotations

import math

import numpy as np

RELATIVE_ACCURACY = 0.005
GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY)
LOG_GAMMA = math.log(GAMMA)
MIN_POSITIVE = 1e-6  # milliseconds; smaller durations count as zero
MAX_DURATION = 1e12  # milliseconds (about 31 years); larger ones count in the top bucket
HEADER = np.dtype("<i8")


class DurationSketch:
    __slots__ = ("counts", "offset", "zeros")

    def __init__(self, offset: int = 0, counts: np.ndarray | None = None, zeros: int = 0) -> None:
        self.offset = offset
        self.counts = np.zeros(0, dtype=np.int64) if counts is None else counts
        self.zeros = zeros

    @property
    def count(self) -> int:
        return self.zeros + int(self.counts.sum())

    @classmethod
    def from_bytes(cls, data: bytes | memoryview | None) -> DurationSketch:
        data = bytes(data or b"")
        if len(data) < 2 * HEADER.itemsize:
            return cls()
        offset, zeros = np.frombuffer(data, dtype=HEADER, count=2).tolist()
        counts = np.frombuffer(data, dtype=HEADER, offset=2 * HEADER.itemsize).astype(np.int64)
        return cls(offset, counts, zeros)

    def to_bytes(self) -> bytes:
        header = np.array([self.offset, self.zeros], dtype=HEADER)
        return header.tobytes() + self.counts.astype(HEADER).tobytes()

    def add(self, values: np.ndarray) -> None:
        values = np.asarray(values, dtype=np.float64)
        positive = values[values >= MIN_POSITIVE]
        self.zeros += int(values.size - positive.size)
        if positive.size == 0:
            return
        indexes = np.ceil(np.log(np.minimum(positive, MAX_DURATION)) / LOG_GAMMA).astype(np.int64)
        low, high = int(indexes.min()), int(indexes.max())
        if self.counts.size:
            low, high = min(low, self.offset), max(high, self.offset + self.counts.size - 1)
        merged = np.bincount(indexes - low, minlength=high - low + 1).astype(np.int64)
        if self.counts.size:
            start = self.offset - low
            merged[start : start + self.counts.size] += self.counts
        self.offset, self.counts = low, merged

    def quantile(self, q: float) -> float:
        """The value at rank q*(n-1), interpolated between its neighbours as numpy's default."""
        total = self.count
        if total == 0:
            return 0.0
        rank = q * (total - 1)
        cumulative = np.cumsum(self.counts)
        below = self._value_at(math.floor(rank), cumulative)
        above = self._value_at(math.ceil(rank), cumulative)
        return below + (above - below) * (rank - math.floor(rank))

    def _value_at(self, rank: int, cumulative: np.ndarray) -> float:
        """The representative of the value with this 0-based rank in sorted order."""
        if rank < self.zeros:
            return 0.0
        bucket = int(np.searchsorted(cumulative, rank - self.zeros, side="right"))
        key = self.offset + min(bucket, self.counts.size - 1)
        return 2.0 * GAMMA**key / (GAMMA + 1.0)


def coarse_histogram(sketch: DurationSketch, bins: int) -> tuple[list[float], list[int]]:
    """The sketch's counts regrouped into at most `bins` log-spaced bins for a chart: the
    `bins + 1` edges (ms) and each bin's count. Durations counted as zero go to the first bin.
    """
    if sketch.count == 0:
        return [], []
    keys = np.flatnonzero(sketch.counts)
    if keys.size == 0:  # only zeros
        return [0.0, MIN_POSITIVE], [sketch.zeros]
    first, last = sketch.offset + int(keys[0]), sketch.offset + int(keys[-1])
    # A bucket k holds (gamma^(k-1), gamma^k]: the edges of whole buckets, so that each
    # sketch bucket falls into exactly one bin.
    span = last - first + 1
    per_bin = max(1, math.ceil(span / bins))
    groups = (np.arange(sketch.counts.size) + sketch.offset - first) // per_bin
    inside = (groups >= 0) & (groups < math.ceil(span / per_bin))
    counts = np.bincount(groups[inside], weights=sketch.counts[inside]).astype(np.int64)
    edges = [float(GAMMA ** (first - 1 + i * per_bin)) for i in range(counts.size + 1)]
    counts[0] += sketch.zeros
    if sketch.zeros:
        edges[0] = 0.0
    return edges, [int(c) for c in counts]
