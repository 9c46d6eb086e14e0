"""Softmax (Boltzmann) exploration: better arms are chosen more, none is ever ruled out."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, optimistic_means, param

if TYPE_CHECKING:
    from collections.abc import Mapping


def softmax(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """exp(mean / temperature), normalised, over mean rescaled rewards in [0, 1].

    A high temperature flattens toward uniform, a low one approaches greedy. Arms with no data
    count as the best possible (mean 1.0), so they are favoured until tried.
    """
    temperature = param(params, "temperature")
    means = optimistic_means(evidence)
    # Subtracting the max keeps exp() finite however small the temperature.
    weights = np.exp((means - means.max()) / temperature)
    return weights / weights.sum()
