"""Thompson sampling with Beta posteriors: an example of a host's `custom` strategy.

Point LEARNPORTAL_CUSTOM_STRATEGY at "refinement.strategies.thompson.thompson" to use it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, arm_stats, monotone_in, param, tried_arms, with_untried

if TYPE_CHECKING:
    from collections.abc import Mapping


def thompson(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """Probability that each arm is the best under its Beta posterior, by seeded Monte-Carlo.

    Choosing by these probabilities is Thompson sampling (probability matching). Rewards rescaled
    to [0, 1] count as fractional successes, each experience adding r to alpha and 1 - r to beta
    over a uniform Beta(1, 1) prior, so binary rewards give the textbook Bernoulli posterior.
    The generator is seeded by `seed` so that one set of evidence always gives one answer.
    The probabilities are over the tried arms, raised so that an arm of better posterior mean
    never has less than a worse one (`monotone_in`); an untried arm weighs as much as the most
    likely one (`with_untried`), so untried components do not take the tried ones' mass.
    """
    samples = int(param(params, "thompson_samples"))
    rng = np.random.default_rng(int(param(params, "seed")))
    tried = tried_arms(evidence)
    if not tried.any():
        return np.full(evidence.n_arms, 1.0 / evidence.n_arms)
    counts, successes = arm_stats(evidence)
    alpha = 1.0 + successes[tried]
    beta = 1.0 + np.maximum(counts[tried] - successes[tried], 0.0)
    draws = rng.beta(alpha, beta, size=(samples, alpha.size))
    wins = np.zeros(evidence.n_arms)
    means = alpha / (alpha + beta)
    counted = np.bincount(draws.argmax(axis=1), minlength=alpha.size) / samples
    # Below one sample's worth, the chance of beating the most likely arm (a normal
    # approximation of the two posteriors) orders the arms Monte-Carlo never saw win, so that
    # no tried arm weighs 0 because another component is far better.
    variance = alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1.0))
    top = int(np.argmax(counted))
    z = (means - means[top]) / np.sqrt(variance + variance[top])
    beats = 0.5 * _erfc(-z / np.sqrt(2.0))
    wins[tried] = monotone_in(counted + beats / samples, means)
    return with_untried(wins, tried)


_erfc = np.frompyfunc(math.erfc, 1, 1)
