"""Adaptive routing strategies: pure numpy, no Django.

Each strategy is a `StrategyFn`: it maps `Evidence` and a parameter mapping to selection
probabilities over arms (components). Built-ins are looked up by name in `BUILTIN_STRATEGIES`;
a host's `custom` one is loaded by dotted path with `load_custom`. The functions themselves live
in their modules (e.g. `refinement.strategies.ucb1.ucb1`), which stay importable by those names.
"""

from __future__ import annotations

import importlib

from . import epsilon_greedy as _epsilon_greedy
from . import ppo as _ppo
from . import softmax as _softmax
from . import ucb1 as _ucb1
from .base import PARAMS, Evidence, ParamSpec, StrategyFn, check_params, validate_target

__all__ = [
    "BUILTIN_STRATEGIES",
    "PARAMS",
    "Evidence",
    "ParamSpec",
    "StrategyFn",
    "check_params",
    "load_custom",
    "validate_target",
]

BUILTIN_STRATEGIES: dict[str, StrategyFn] = {
    "ppo": _ppo.ppo,
    "ucb1": _ucb1.ucb1,
    "epsilon_greedy": _epsilon_greedy.epsilon_greedy,
    "softmax": _softmax.softmax,
}


def load_custom(dotted_path: str) -> StrategyFn:
    """Import the callable at "package.module.name", so a host can plug in its own strategy.

    Raises ValueError saying what is wrong, so a bad LEARNPORTAL_CUSTOM_STRATEGY fails loudly.
    """
    if not isinstance(dotted_path, str) or not dotted_path.strip():
        raise ValueError("custom strategy path must be a non-empty dotted path")
    module_path, _, name = dotted_path.strip().rpartition(".")
    if not module_path or not name:
        raise ValueError(
            f"custom strategy path {dotted_path!r} must look like 'package.module.function'"
        )
    try:
        module = importlib.import_module(module_path)
    except ImportError as exc:
        raise ValueError(
            f"custom strategy {dotted_path!r}: cannot import module {module_path!r} ({exc})"
        ) from exc
    try:
        strategy = getattr(module, name)
    except AttributeError as exc:
        raise ValueError(
            f"custom strategy {dotted_path!r}: module {module_path!r} has no attribute {name!r}"
        ) from exc
    if not callable(strategy):
        raise ValueError(f"custom strategy {dotted_path!r} is not callable")
    return strategy
