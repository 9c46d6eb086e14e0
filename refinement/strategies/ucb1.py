"""UCB1 (Auer, Cesa-Bianchi & Fischer 2002): optimism in the face of uncertainty.

Rewards are rescaled from [-1, 1] to [0, 1] first, because the logarithmic regret bound is
proved for rewards in [0, 1]; with `ucb_c` = sqrt(2) the index is exactly the paper's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, argmax_mass, arm_stats, param

if TYPE_CHECKING:
    from collections.abc import Mapping


def ucb1_index(evidence: Evidence, c: float) -> np.ndarray:
    """Mean rescaled reward plus c * sqrt(ln n / n_i); +inf for untried arms."""
    counts, sums = arm_stats(evidence)
    index = np.full(evidence.n_arms, np.inf)
    tried = counts > 0
    total = counts.sum()
    if total == 0:
        return index
    index[tried] = sums[tried] / counts[tried] + c * np.sqrt(np.log(total) / counts[tried])
    return index


def ucb1(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """Spread over the untried arms while any remain, else all mass on the top index (ties split).

    UCB1 is deterministic, so its selection probabilities are an indicator of its choice.
    """
    index = ucb1_index(evidence, param(params, "ucb_c"))
    untried = np.isinf(index)
    if untried.any():
        return untried / np.count_nonzero(untried)
    return argmax_mass(index)
