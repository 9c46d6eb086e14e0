"""The host's adapt without Django, for sweeping parameters fast (the table is the live run's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.learning.runtime import STEP
from feedback.reward_window import first_bucket, span_for
from refinement.strategies import BUILTIN_STRATEGIES, Evidence
from refinement.strategies.base import relative_to_best
from refinement.strategies.thompson import thompson
from refinement.strategy_registry import REPLAY_STRATEGIES
from refinement.trust_region import changes_weight, step_toward, weight_rounded

if TYPE_CHECKING:
    from collections.abc import Mapping

    from refinement.strategies import StrategyFn


REPLAY_WINDOW = 10_000  # LEARNPORTAL_REPLAY_WINDOW's default


@dataclass
class ModelHost:
    """adapt without Django: the arithmetic of `refinement.adapt.adapt_run` on in-memory rows.

    The same strategy functions, `relative_to_best`, `step_toward` at the auto-apply step and
    the 6-decimal rounding; components in name order, each component's count and reward sum
    over the newest `window` experiences as the host's buckets count them (ids from 1 in order
    of arrival: feedback.reward_window), and for PPO and custom the newest `replay` of them
    one by one. For sweeping parameters fast; the table itself comes from `LiveHost`.
    """

    params: Mapping[str, float]
    window: int = 1_000_000
    replay: int = REPLAY_WINDOW
    weights: dict[str, float] = field(default_factory=dict)
    rows: list[tuple[str, float, float | None]] = field(default_factory=list)
    known: set[str] = field(default_factory=set)

    def routing(self) -> dict[str, float]:
        return dict(self.weights)

    def report(self, experiences: list[dict[str, Any]]) -> None:
        for item in experiences:
            action = item["action"]
            self.known.add(action["component_name"])
            self.rows.append((action["component_name"], item["reward"], action["action_prob"]))

    def feedback(self, component: str, score: float) -> None:
        self.known.add(component)

    def adapt(self, strategy: str) -> None:
        names = sorted(self.known)
        index = {name: i for i, name in enumerate(names)}
        latest = len(self.rows)
        ids = np.arange(1, latest + 1)
        counted = (ids - 1) // span_for(self.window) >= first_bucket(latest, self.window)
        arms = np.array([index[r[0]] for r in self.rows], dtype=np.int64)[counted]
        rewards = np.clip(np.array([r[1] for r in self.rows], dtype=np.float64), -1, 1)[counted]
        counts = np.bincount(arms, minlength=len(names)).astype(np.float64)
        sums = np.bincount(arms, weights=rewards, minlength=len(names))
        replay = strategy in REPLAY_STRATEGIES
        rows = self.rows[-min(self.window, self.replay) :] if replay else []
        evidence = Evidence(
            len(names),
            np.array([index[r[0]] for r in rows], dtype=np.int64),
            np.array([r[1] for r in rows], dtype=np.float64),
            np.array([np.nan if r[2] is None else r[2] for r in rows], dtype=np.float64),
            np.array([self.weights.get(n, 0.5) for n in names], dtype=np.float64),
            counts,
            sums,
        )
        fn: StrategyFn = thompson if strategy == "custom" else BUILTIN_STRATEGIES[strategy]
        target = relative_to_best(fn(evidence, self.params))
        for name, wanted in zip(names, target, strict=True):
            current = self.weights.get(name, 0.5)
            new = step_toward(current, weight_rounded(float(wanted)), STEP)
            if changes_weight(current, new):
                self.weights[name] = new
