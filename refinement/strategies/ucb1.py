"""UCB1 (Auer, Cesa-Bianchi & Fischer 2002): optimism in the face of uncertainty.

Rewards are rescaled from [-1, 1] to [0, 1] first, because the logarithmic regret bound is
proved for rewards in [0, 1]; with `ucb_c` = sqrt(2) the index is exactly the paper's.

UCB1 is a deterministic rule: at each pull it takes the arm of top index. A routing weight is a
traffic share, so what this strategy returns is the share of the next `ucb_horizon` pulls the
rule would give each arm from the counts so far (`ucb1_shares`), not all the mass on today's
argmax: a runtime that renormalises over any subset of arms still sees the rule's preferences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import (
    Evidence,
    argmax_mass,
    arm_stats,
    monotone_in,
    param,
    tried_arms,
    with_untried,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

_BISECTIONS = 100


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


def ucb1_shares(counts: np.ndarray, means: np.ndarray, c: float, horizon: float) -> np.ndarray:
    """The share of the next `horizon` pulls the UCB1 rule gives each (tried) arm, in closed form.

    Pulling the top index until the horizon is spent raises every pulled arm's count until its
    index comes down to a common level L: arm i ends at n_i' = c^2 ln(N + H) / (L - mean_i)^2
    pulls (never fewer than it has). L is the level at which the extra pulls add up to H, found
    by bisection; the shares are the extra pulls over H, plus the rate at which the rule comes
    back to each arm once the level is reached (so an arm below it keeps a share that shrinks
    with its distance to the level, never 0). Fractional pulls make the shares a
    smooth function of the evidence: an arm with a better mean and no more pulls than another
    never gets a smaller share. With c = 0 the rule is greedy: all on the best mean.
    """
    counts = np.asarray(counts, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    if c <= 0:
        return argmax_mass(means)
    scale = c * c * np.log(counts.sum() + horizon)

    def extra(level: float) -> np.ndarray:
        gap = np.maximum(level - means, 1e-12)
        return np.maximum(scale / (gap * gap) - counts, 0.0)

    low = float(means.max())
    high = float((means + np.sqrt(scale / np.maximum(counts, 1e-12))).max())
    for _ in range(_BISECTIONS):
        middle = 0.5 * (low + high)
        if extra(middle).sum() > horizon:
            low = middle
        else:
            high = middle
    # Beyond the horizon the rule keeps every arm's index near the level, coming back to arm i
    # at the rate d n_i' / dt = c^2 / ((L - mean_i)^2 (N + H)) pulls per pull: an arm below the
    # level now still gets that share, so that no tried arm weighs 0 however good another is.
    gap = np.maximum(high - means, 1e-12)
    rate = c * c / (gap * gap * (counts.sum() + horizon))
    pulls = extra(high) / horizon + rate
    return pulls / pulls.sum()


def ucb1(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """The UCB1 rule's share of the next `ucb_horizon` pulls for each tried arm.

    An arm with a better mean never gets less than a worse one (`monotone_in`: the exploration
    bonus may favour the less tried arm, which then lifts the better ones to its share). An
    untried arm (infinite index) weighs as much as the most favoured tried arm (`with_untried`),
    so it is tried wherever it is offered, yet takes nothing from the others.
    """
    c = param(params, "ucb_c")
    horizon = param(params, "ucb_horizon")
    tried = tried_arms(evidence)
    if not tried.any():
        return np.full(evidence.n_arms, 1.0 / evidence.n_arms)
    counts, sums = arm_stats(evidence)
    shares = np.zeros(evidence.n_arms)
    means = sums[tried] / counts[tried]
    shares[tried] = monotone_in(ucb1_shares(counts[tried], means, c, horizon), means)
    return with_untried(shares, tried)
