"""How far adapt may move a routing weight by itself: the step arithmetic of the trust region.

A machine applies by itself up to `LEARNPORTAL_AUTO_APPLY_MAX_RISK`, and the review rates a
weight's step by `STEP_LIMIT` (refinement.review.weight_step_risk), so each risk allows a step
that large. Repeated adapts so converge on the strategy's target without any single risky jump.
Pure arithmetic, no database.
"""

from __future__ import annotations

import math

from refinement.vocabulary import RiskLevel

# The largest step of a routing weight at each risk: the review's thresholds and the trust
# region's steps alike (a step over LOW's is medium risk, over MEDIUM's high).
STEP_LIMIT = {RiskLevel.NONE: 0.0, RiskLevel.LOW: 0.1, RiskLevel.MEDIUM: 0.3, RiskLevel.HIGH: 1.0}
# Weights are stored to this many significant digits, not decimals: a weight of 7e-11 and one
# of 3e-11 keep their order (rounded to decimals both were 0.0, and a runtime could not tell them
# apart), and a weight near 1 is as precise as 6 decimals make it.
SIGNIFICANT = 6
MOVED = 1e-6  # a tolerance of the trust window's sums, in weight
FUZZ = 1e-12  # float arithmetic's error in a step: 0.4 - 0.3 is 0.10000000000000003


def max_step(risk: RiskLevel | str, *, rolled_back_lately: bool = False) -> float:
    """The largest step a weight may take when machines may apply up to `risk`.

    A weight rolled back lately is medium risk at least, so under a limit of low it stays put.
    """
    risk = RiskLevel(risk)
    if rolled_back_lately and risk < RiskLevel.MEDIUM:
        return 0.0
    return STEP_LIMIT[risk]


def weight_rounded(value: float) -> float:
    """A weight as it is stored: to SIGNIFICANT significant digits."""
    return float(f"{value:.{SIGNIFICANT}g}")


def step_toward(current: float, target: float, limit: float) -> float:
    """`current` moved toward `target` by at most `limit`, rounded as weights are stored."""
    delta = max(-limit, min(limit, target - current))
    new = weight_rounded(current + delta)
    if abs(new - current) > limit + FUZZ:
        # Rounded away from `current` past the step (0.0123457 + 0.1 is 0.112346): one unit of
        # the last digit back toward it.
        unit = 10.0 ** (math.floor(math.log10(abs(new))) - (SIGNIFICANT - 1))
        new = weight_rounded(new - math.copysign(unit, delta))
    return new


def changes_weight(current: float, new: float) -> bool:
    """Whether a step from `current` to `new` changes the weight as stored."""
    return weight_rounded(new) != weight_rounded(current)
