"""Thompson sampling with Beta posteriors: an example of a host's `custom` strategy.

Point LEARNPORTAL_CUSTOM_STRATEGY at "refinement.strategies.thompson.thompson" to use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, arm_stats, param

if TYPE_CHECKING:
    from collections.abc import Mapping


def thompson(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """Probability that each arm is the best under its Beta posterior, by seeded Monte-Carlo.

    Choosing by these probabilities is Thompson sampling (probability matching). Rewards rescaled
    to [0, 1] count as fractional successes, each experience adding r to alpha and 1 - r to beta
    over a uniform Beta(1, 1) prior, so binary rewards give the textbook Bernoulli posterior.
    The generator is seeded by `seed` so that one set of evidence always gives one answer.
    """
    samples = int(param(params, "thompson_samples"))
    rng = np.random.default_rng(int(param(params, "seed")))
    counts, successes = arm_stats(evidence)
    alpha = 1.0 + successes
    beta = 1.0 + np.maximum(counts - successes, 0.0)
    draws = rng.beta(alpha, beta, size=(samples, evidence.n_arms))
    wins = np.bincount(draws.argmax(axis=1), minlength=evidence.n_arms)
    return wins / samples
