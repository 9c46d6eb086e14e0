"""Epsilon-greedy: exploit the best mean, explore uniformly with probability epsilon."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, argmax_mass, arm_stats, param, tried_arms, with_untried

if TYPE_CHECKING:
    from collections.abc import Mapping


def epsilon_greedy(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """Over the tried arms, epsilon / k each plus 1 - epsilon on the best mean rescaled reward.

    Ties split the greedy mass evenly. An untried arm weighs as much as the best one
    (`with_untried`): it is tried soon wherever it is offered, and it takes none of the greedy
    mass, so the tried arms keep their order whatever untried components exist.
    """
    epsilon = param(params, "epsilon")
    tried = tried_arms(evidence)
    if not tried.any():
        return np.full(evidence.n_arms, 1.0 / evidence.n_arms)
    counts, sums = arm_stats(evidence)
    means = np.where(tried, sums / np.maximum(counts, 1.0), -np.inf)
    k = np.count_nonzero(tried)
    shares = np.where(tried, epsilon / k + (1.0 - epsilon) * argmax_mass(means), 0.0)
    return with_untried(shares, tried)
