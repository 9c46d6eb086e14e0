"""How far adapt may move a routing weight by itself: the step arithmetic of the trust region.

A machine applies by itself up to `LEARNPORTAL_AUTO_APPLY_MAX_RISK`, and a weight change is low
risk up to 0.1 and medium up to 0.3 (refinement.review), so each risk allows a step that large.
Repeated adapts so converge on the strategy's target without any single risky jump. Pure
arithmetic, no database.
"""

from __future__ import annotations

STEP_LIMIT = {"none": 0.0, "low": 0.1, "medium": 0.3, "high": 1.0}
PRECISION = 6  # weights are stored rounded to this many decimals
MOVED = 10**-PRECISION


def max_step(risk: str, *, rolled_back_lately: bool = False) -> float:
    """The largest step a weight may take when machines may apply up to `risk`.

    A weight rolled back lately is medium risk at least, so under a limit of low it stays put.
    """
    if rolled_back_lately and risk in {"none", "low"}:
        return 0.0
    return STEP_LIMIT[risk]


def step_toward(current: float, target: float, limit: float) -> float:
    """`current` moved toward `target` by at most `limit`, rounded as weights are stored."""
    return round(current + max(-limit, min(limit, target - current)), PRECISION)
