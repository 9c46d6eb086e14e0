"""Softmax (Boltzmann) exploration: better arms are chosen more, none is ever ruled out."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, arm_stats, param, tried_arms, with_untried

if TYPE_CHECKING:
    from collections.abc import Mapping


def softmax(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """exp(mean / temperature), normalised, over mean rescaled rewards in [0, 1].

    A high temperature flattens toward uniform, a low one approaches greedy; on [0, 1] means a
    temperature of 1 is nearly uniform (a 0.8 gap is a factor e^0.8 = 2.2), hence the default
    chosen by the loop benchmark (docs/explanation/routing-weights.md). Each arm's share
    depends only on its own mean relative to the best, so renormalising over any candidate set
    is the softmax of that set. An untried arm weighs as much as the best (`with_untried`).
    """
    temperature = param(params, "temperature")
    tried = tried_arms(evidence)
    counts, sums = arm_stats(evidence)
    means = np.where(tried, sums / np.maximum(counts, 1.0), 0.0)
    top = means[tried].max() if tried.any() else 0.0
    # Subtracting the max keeps exp() finite however small the temperature.
    shares = np.where(tried, np.exp((means - top) / temperature), 0.0)
    return with_untried(shares, tried)
