"""Intervals of shares, written once for every page and answer that gives one."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share `successes / trials` (trials > 0): unlike the
    normal approximation, it stays inside [0, 1] and is honest for a handful of trials."""
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    half /= 1 + z * z / trials
    return (max(0.0, centre - half), min(1.0, centre + half))
