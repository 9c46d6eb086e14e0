"""How far adapt may move a routing weight by itself: the step arithmetic of the trust region.

A machine applies by itself up to `LEARNPORTAL_AUTO_APPLY_MAX_RISK`, and a weight change is low
risk up to 0.1 and medium up to 0.3 (refinement.review), so each risk allows a step that large.
Repeated adapts so converge on the strategy's target without any single risky jump. Pure
arithmetic, no database.
"""

from __future__ import annotations

from refinement.vocabulary import RiskLevel

STEP_LIMIT = {RiskLevel.NONE: 0.0, RiskLevel.LOW: 0.1, RiskLevel.MEDIUM: 0.3, RiskLevel.HIGH: 1.0}
PRECISION = 6  # weights are stored rounded to this many decimals
MOVED = 10**-PRECISION


def max_step(risk: RiskLevel | str, *, rolled_back_lately: bool = False) -> float:
    """The largest step a weight may take when machines may apply up to `risk`.

    A weight rolled back lately is medium risk at least, so under a limit of low it stays put.
    """
    risk = RiskLevel(risk)
    if rolled_back_lately and risk < RiskLevel.MEDIUM:
        return 0.0
    return STEP_LIMIT[risk]


def step_toward(current: float, target: float, limit: float) -> float:
    """`current` moved toward `target` by at most `limit`, rounded as weights are stored."""
    return round(current + max(-limit, min(limit, target - current)), PRECISION)
