"""How far two raters agree on paired items, each figure with a 95% interval: Cohen's kappa
on categories, the mean absolute error and Spearman's rank correlation on scores. Written
once, for the judges' answers and their page; tests hold them to scikit-learn and scipy."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from feedback.intervals import Z95

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

Interval = tuple[float, float]


@dataclass(frozen=True)
class Estimate:
    value: float | None
    interval: Interval | None = None


NONE = Estimate(None)


def cohen_kappa(first: Sequence[object], second: Sequence[object]) -> Estimate:
    """Cohen's kappa of two raters' categories on the same items, with the large-sample
    interval (kappa ± z·sqrt(po(1-po)/n)/(1-pe)); None when chance explains everything."""
    n = len(first)
    if n == 0 or n != len(second):
        return NONE
    labels = sorted({*map(repr, first), *map(repr, second)})
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for a, b in zip(first, second, strict=True):
        table[index[repr(a)], index[repr(b)]] += 1
    observed = float(np.trace(table)) / n
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / (n * n)
    if expected >= 1:
        return NONE
    kappa = (observed - expected) / (1 - expected)
    half = Z95 * math.sqrt(observed * (1 - observed) / n) / (1 - expected)
    return Estimate(kappa, (max(-1.0, kappa - half), min(1.0, kappa + half)))


def mean_absolute_error(first: ArrayLike, second: ArrayLike) -> Estimate:
    errors = np.abs(np.asarray(first, dtype=np.float64) - np.asarray(second, dtype=np.float64))
    if errors.size == 0:
        return NONE
    mae = float(errors.mean())
    if errors.size < 2:
        return Estimate(mae)
    half = Z95 * float(errors.std(ddof=1)) / math.sqrt(errors.size)
    return Estimate(mae, (max(0.0, mae - half), mae + half))


def spearman(first: ArrayLike, second: ArrayLike) -> Estimate:
    """Spearman's rho (Pearson's of average ranks), with the Fisher-z interval (n > 3); None
    when either side is constant."""
    a, b = _ranks(first), _ranks(second)
    if a.size < 2 or a.std() == 0 or b.std() == 0:
        return NONE
    rho = float(np.corrcoef(a, b)[0, 1])
    if a.size <= 3 or abs(rho) >= 1:
        return Estimate(rho)
    z, half = math.atanh(rho), Z95 / math.sqrt(a.size - 3)
    return Estimate(rho, (math.tanh(z - half), math.tanh(z + half)))


def _ranks(values: ArrayLike) -> NDArray[np.float64]:
    """1-based ranks, ties given their average."""
    data = np.asarray(values, dtype=np.float64)
    order = np.argsort(data, kind="mergesort")
    ranks = np.empty(data.size)
    ranks[order] = np.arange(1, data.size + 1)
    _, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return np.asarray(sums[inverse] / counts[inverse], dtype=np.float64)
