"""MABWiser 2.7 computing what ours computes: matched parameters, its fit, its sequential play.

MABWiser is a bench-only dependency (`pip install .[bench]`), imported only inside these
functions.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bench.strategies.data import Data


MAB_NAME = {"ucb1": "UCB1", "epsilon_greedy": "EpsilonGreedy", "softmax": "Softmax"}


def mabwiser_policy(name: str, params: Mapping[str, float]) -> Any:
    """MABWiser's policy computing what ours computes with these parameters.

    - UCB1: ours is mean + c sqrt(ln n / n_i), MABWiser's mean + alpha sqrt(2 ln n / n_i), both
      on [0, 1] rewards: alpha = c / sqrt(2) (the default c = sqrt 2 is alpha = 1, Auer's index).
    - EpsilonGreedy: the same epsilon.
    - Softmax: ours is exp(mean / temperature) over means rescaled to [0, 1]; MABWiser's
      exp(mean / tau) over means of {0, 1} rewards: the same scale, so tau = temperature.
    """
    from mabwiser.mab import LearningPolicy

    if name == "ucb1":
        return LearningPolicy.UCB1(alpha=float(params["ucb_c"]) / math.sqrt(2.0))
    if name == "epsilon_greedy":
        return LearningPolicy.EpsilonGreedy(epsilon=float(params["epsilon"]))
    if name == "softmax":
        return LearningPolicy.Softmax(tau=float(params["temperature"]))
    raise ValueError(f"no MABWiser counterpart for {name!r}")


def mabwiser_label(name: str, params: Mapping[str, float]) -> str:
    if name == "ucb1":
        return f"UCB1(alpha={params['ucb_c'] / math.sqrt(2.0):g})"
    if name == "epsilon_greedy":
        return f"EpsilonGreedy(epsilon={params['epsilon']:g})"
    return f"Softmax(tau={params['temperature']:g})"


def fit_mabwiser(data: Data, name: str, params: Mapping[str, float]) -> tuple[Any, dict[str, Any]]:
    from mabwiser.mab import MAB

    mab = MAB(list(range(data.n_arms)), mabwiser_policy(name, params), seed=0)
    mab.fit(data.arm, data.reward01)
    return mab, mab.predict_expectations()


def mabwiser_bandit(
    name: str, params: Mapping[str, float], means: np.ndarray, rounds: int, seed: int
) -> np.ndarray:
    """MABWiser played sequentially on a Bernoulli bandit; returns the arms chosen.

    It starts with one pull of each arm in order (counted in its regret), as Auer's UCB1 does.
    MABWiser must be fit before its first prediction and values an arm without data at 0: fit on
    one pull of arm 0 instead, its UCB1 pulls arm 0 for ever (2,000 of 2,000 rounds, checked).
    Our strategies try every arm by themselves (an arm without data is valued at the top).
    """
    from mabwiser.mab import MAB

    rng = np.random.default_rng(seed)
    n_arms = means.size
    mab = MAB(list(range(n_arms)), mabwiser_policy(name, params), seed=seed)
    chosen = np.empty(rounds, dtype=np.int64)
    warm = min(n_arms, rounds)
    first = np.arange(warm)
    mab.fit(first, (rng.random(warm) < means[first]).astype(np.float64))
    chosen[:warm] = first
    for t in range(warm, rounds):
        arm = int(mab.predict())
        mab.partial_fit([arm], [1.0 if rng.random() < means[arm] else 0.0])
        chosen[t] = arm
    return chosen


def agreement(name: str, ours: np.ndarray, mab: Any) -> str:
    """Whether both sides computed the same thing on the same data (MABWiser's internal state)."""
    theirs = np.array(list(mab._imp.arm_to_expectation.values()), dtype=np.float64)
    if name == "softmax":
        return f"probabilities, max abs diff {np.abs(ours - theirs).max():.1e}"
    same = int(np.argmax(ours)) == int(np.argmax(theirs))
    return f"best arm {'same' if same else 'DIFFERENT'} ({int(np.argmax(ours))})"
