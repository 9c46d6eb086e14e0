"""Epsilon-greedy: exploit the best mean, explore uniformly with probability epsilon."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Evidence, argmax_mass, optimistic_means, param

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np


def epsilon_greedy(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """epsilon / n_arms everywhere, plus 1 - epsilon on the best mean rescaled reward.

    Arms with no data count as the best possible (mean 1.0), so the greedy part tries them first;
    ties split the greedy mass evenly.
    """
    epsilon = param(params, "epsilon")
    means = optimistic_means(evidence)
    return epsilon / evidence.n_arms + (1.0 - epsilon) * argmax_mass(means)
