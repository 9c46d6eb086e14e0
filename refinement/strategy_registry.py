"""Which strategies this host allows, with the parameters from settings."""

from __future__ import annotations

from django.conf import settings

from learnportal_protocol.errors import ErrorCode, LearnError, detail
from refinement.strategies import BUILTIN_STRATEGIES, StrategyFn, load_custom

# The strategies that read the replay window of experiences themselves (PPO's ratio needs each
# experience's behaviour probability; a host's own may read anything); the others read only
# each component's count and reward sum.
REPLAY_STRATEGIES = frozenset({"ppo", "custom"})


def strategy_for(name: str) -> StrategyFn:
    allowed = settings.LEARNPORTAL_ADAPT_STRATEGIES
    custom_path = settings.LEARNPORTAL_CUSTOM_STRATEGY
    if name not in allowed or (name == "custom" and not custom_path):
        usable = [s for s in allowed if s != "custom" or custom_path]
        raise LearnError(
            ErrorCode.STRATEGY_NOT_ALLOWED,
            f"Strategy {name!r} is not allowed on this host; allowed: {', '.join(usable)}.",
            [detail(["strategy"], "not allowed")],
        )
    if name == "custom":
        return load_custom(custom_path)
    return BUILTIN_STRATEGIES[name]


def strategy_params() -> dict[str, float]:
    return dict(settings.LEARNPORTAL_STRATEGY_PARAMS)
