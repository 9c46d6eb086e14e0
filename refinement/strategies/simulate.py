"""A Bernoulli bandit to measure strategies by regret, for the tests and the benchmark."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, StrategyFn, validate_target

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class SimulationResult:
    """One run: what was chosen, what it paid, with what probability, and the regret so far."""

    choices: np.ndarray  # int64 (rounds,), the arm pulled each round
    rewards: np.ndarray  # float64 (rounds,), on the strategies' [-1, 1] scale
    behaviour_prob: np.ndarray  # float64 (rounds,), probability the pulled arm had
    cumulative_regret: np.ndarray  # float64 (rounds,), sum of best_mean - mean[chosen] so far

    @property
    def regret(self) -> float:
        """Expected regret over the whole run."""
        return float(self.cumulative_regret[-1]) if self.cumulative_regret.size else 0.0


def run_bandit(
    strategy: StrategyFn,
    means: np.ndarray,
    rounds: int,
    *,
    seed: int,
    params: Mapping[str, float] | None = None,
    refit_every: int = 1,
) -> SimulationResult:
    """Play `rounds` pulls of a Bernoulli bandit, sampling each arm from the strategy's target.

    Rewards in {0, 1} are fed to the strategy as r * 2 - 1. The buffers are allocated once and
    the strategy sees growing views of them, so a round costs one strategy call, not a copy of
    the history; `refit_every` = k recomputes the target only every k rounds, for strategies as
    costly as PPO. Between refits the strategy's target is also the weight vector in force.
    """
    means = np.asarray(means, dtype=np.float64)
    if means.ndim != 1 or means.size == 0 or means.min() < 0.0 or means.max() > 1.0:
        raise ValueError("means must be a non-empty 1-D array of probabilities")
    if rounds < 0 or refit_every < 1:
        raise ValueError("rounds must be >= 0 and refit_every >= 1")
    params = {} if params is None else params
    n_arms = means.size
    rng = np.random.default_rng(seed)
    choices = np.zeros(rounds, dtype=np.int64)
    rewards = np.zeros(rounds)
    behaviour = np.zeros(rounds)
    current = np.full(n_arms, 0.5)
    target = current
    for t in range(rounds):
        if t % refit_every == 0:
            evidence = Evidence(n_arms, choices[:t], rewards[:t], behaviour[:t], current)
            target = validate_target(strategy(evidence, params), n_arms)
            current = target
        cumulative = np.cumsum(target)
        arm = min(
            int(np.searchsorted(cumulative, rng.random() * cumulative[-1], "right")), n_arms - 1
        )
        choices[t] = arm
        behaviour[t] = target[arm]
        rewards[t] = 1.0 if rng.random() < means[arm] else -1.0
    regret = np.cumsum(means.max() - means[choices])
    return SimulationResult(choices, rewards, behaviour, regret)


def uniform_regret(means: np.ndarray, rounds: int) -> float:
    """Expected regret of choosing uniformly at random: the baseline any strategy must beat."""
    means = np.asarray(means, dtype=np.float64)
    return float(rounds * (means.max() - means.mean()))


def ucb1_regret_bound(means: np.ndarray, rounds: int) -> float:
    """Auer et al. (2002), Theorem 1: UCB1's expected regret after n rounds, rewards in [0, 1].

    sum over suboptimal arms of 8 ln n / delta_i + (1 + pi^2 / 3) delta_i.
    """
    means = np.asarray(means, dtype=np.float64)
    gaps = means.max() - means
    gaps = gaps[gaps > 0]
    return float(np.sum(8.0 * math.log(rounds) / gaps + (1.0 + math.pi**2 / 3.0) * gaps))
