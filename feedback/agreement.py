"""Krippendorff's alpha with the interval metric, in plain numpy: no Django, no Python loop.

The reliability data are pairs (unit, value): one value per coder and unit, in any order, with
missing values simply absent. For the interval metric, delta(c, k) = (c - k)**2, and the sums
over pairs of values reduce to each unit's count, mean and squared deviations (Krippendorff
2011, "Computing Krippendorff's Alpha-Reliability", section C, in closed form):

    D_o = 1/n * sum_u  2 * m_u * SS_u / (m_u - 1)         over units with m_u >= 2 values
    D_e = 2 * n * SS / (n * (n - 1))                      over those units' n values
    alpha = 1 - D_o / D_e = 1 - (n - 1) / n * sum_u (m_u * SS_u / (m_u - 1)) / SS

where SS_u is the sum of squared deviations from unit u's mean and SS that from the mean of all
n pairable values. One `bincount` per sum makes it O(values), whatever the number of units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class Alpha:
    """Alpha and what it rests on: `units` with two values or more, and their `values`.

    `alpha` is None when it is undefined: fewer than two such units, or no variation at all
    among their values (D_e = 0, where the formula is 0/0).
    """

    alpha: float | None
    units: int
    values: int


def unit_moments(
    units: ArrayLike, values: ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """Per unit (numbered 0..U-1 in order of first code), its count, sum and sum of squares."""
    codes = np.asarray(units)
    x = np.asarray(values, dtype=np.float64)
    if codes.shape != x.shape or codes.ndim != 1:
        raise ValueError("units and values must be one-dimensional and of the same length")
    if not np.isfinite(x).all():
        raise ValueError("values must be finite: leave a missing value out instead")
    if codes.size == 0:
        empty = np.zeros(0)
        return np.zeros(0, dtype=np.int64), empty, empty
    if codes.dtype.kind in "iu" and codes.min() >= 0:
        index = codes.astype(np.int64)
    else:
        _, index = np.unique(codes, return_inverse=True)
    count = np.bincount(index).astype(np.int64)
    present = count > 0
    # bincount with weights sums floats (numpy's stubs say integers).
    total = np.bincount(index, weights=x)[present].astype(np.float64)
    squares = np.bincount(index, weights=x * x)[present].astype(np.float64)
    return count[present], total, squares


def unit_observed(count: ArrayLike, total: ArrayLike, squares: ArrayLike) -> NDArray[np.float64]:
    """Each unit's share of the observed disagreement, m_u * SS_u / (m_u - 1); 0 below two
    values (a unit with one value pairs with nothing)."""
    m = np.asarray(count, dtype=np.float64)
    s = np.asarray(total, dtype=np.float64)
    q = np.asarray(squares, dtype=np.float64)
    pairable = m >= 2
    safe = np.where(pairable, m, 2.0)
    # Squared deviations from each unit's mean; clipped at 0 against rounding.
    within = np.maximum(q - s * s / safe, 0.0)
    return np.where(pairable, safe * within / (safe - 1), 0.0)


def alpha_interval_from_sums(
    units: int, values: float, total: float, squares: float, observed: float
) -> Alpha:
    """Alpha from sums over the units with two values or more: how many `units`, their
    `values` (n), the sum and sum of squares of those values, and the sum of `unit_observed`.

    What a store that keeps these five sums per dimension (as values arrive and leave) reads
    in constant time, whatever the number of units.
    """
    n = float(values)
    if units < 2:
        return Alpha(None, int(units), int(n))
    spread = max(float(squares) - float(total) * float(total) / n, 0.0)
    if spread <= 1e-12 * max(float(squares), 1.0):
        return Alpha(None, int(units), int(n))
    return Alpha(1.0 - (n - 1) / n * float(observed) / spread, int(units), int(n))


def alpha_interval_from_moments(count: ArrayLike, total: ArrayLike, squares: ArrayLike) -> Alpha:
    """Alpha from each unit's count, sum and sum of squares of its values (e.g. a GROUP BY's)."""
    m = np.asarray(count, dtype=np.float64)
    s = np.asarray(total, dtype=np.float64)
    q = np.asarray(squares, dtype=np.float64)
    pairable = m >= 2
    m, s, q = m[pairable], s[pairable], q[pairable]
    return alpha_interval_from_sums(
        int(m.size),
        float(m.sum()),
        float(s.sum()),
        float(q.sum()),
        float(unit_observed(m, s, q).sum()),
    )


def alpha_interval(units: ArrayLike, values: ArrayLike) -> Alpha:
    """Alpha over (unit, value) pairs, one pair per coder and unit; units may be any labels."""
    return alpha_interval_from_moments(*unit_moments(units, values))


def alpha_interval_matrix(data: ArrayLike) -> Alpha:
    """Alpha over a coders x units matrix with NaN for a missing value (the paper's layout)."""
    matrix = np.asarray(data, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError("reliability data must be a coders x units matrix")
    present = ~np.isnan(matrix)
    unit_of = np.broadcast_to(np.arange(matrix.shape[1]), matrix.shape)
    return alpha_interval(unit_of[present], matrix[present])


def spread_by_unit(
    units: ArrayLike, values: ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """Per unit with two values or more: its code, count, range (max - min) and variance.

    What the agreement page sorts by to show where coders disagree most.
    """
    codes = np.asarray(units, dtype=np.int64)
    x = np.asarray(values, dtype=np.float64)
    size = int(codes.max()) + 1 if codes.size else 0
    count = np.bincount(codes, minlength=size)
    total = np.bincount(codes, weights=x, minlength=size).astype(np.float64)
    squares = np.bincount(codes, weights=x * x, minlength=size).astype(np.float64)
    high = np.full(size, -np.inf)
    low = np.full(size, np.inf)
    np.maximum.at(high, codes, x)
    np.minimum.at(low, codes, x)
    keep = np.flatnonzero(count >= 2)
    m = count[keep].astype(np.float64)
    variance = np.maximum(squares[keep] / m - (total[keep] / m) ** 2, 0.0)
    return keep, count[keep].astype(np.int64), high[keep] - low[keep], variance
