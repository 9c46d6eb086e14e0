from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pytest

from refinement.strategies.simulate import run_bandit, ucb1_regret_bound, uniform_regret

if TYPE_CHECKING:
    from collections.abc import Mapping

    from refinement.strategies import Evidence, StrategyFn


def _fixed(target: list[float]) -> StrategyFn:
    def strategy(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
        return np.array(target)

    return strategy


def test_regret_is_the_expected_regret_of_the_arms_chosen() -> None:
    means = np.array([0.7, 0.2, 0.5])

    result = run_bandit(_fixed([0.2, 0.5, 0.3]), means, 500, seed=1)

    np.testing.assert_allclose(result.cumulative_regret, np.cumsum(0.7 - means[result.choices]))
    assert result.regret == pytest.approx(result.cumulative_regret[-1])


def test_arms_are_sampled_from_the_target_and_their_probability_is_recorded() -> None:
    result = run_bandit(_fixed([0.7, 0.3]), np.array([0.5, 0.5]), 4000, seed=2)

    assert np.mean(result.choices == 0) == pytest.approx(0.7, abs=0.03)
    np.testing.assert_array_equal(result.behaviour_prob, np.where(result.choices == 0, 0.7, 0.3))


def test_bernoulli_rewards_reach_the_strategy_on_the_minus_one_to_one_scale() -> None:
    result = run_bandit(_fixed([0.5, 0.5]), np.array([1.0, 0.0]), 200, seed=3)

    np.testing.assert_array_equal(result.rewards, np.where(result.choices == 0, 1.0, -1.0))


def test_refit_every_recomputes_the_target_only_every_k_rounds() -> None:
    seen: list[tuple[int, list[float]]] = []

    def strategy(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
        seen.append((evidence.size, evidence.current.tolist()))
        return np.array([0.25, 0.75])

    run_bandit(strategy, np.array([0.5, 0.5]), 95, seed=4, refit_every=10)

    assert [size for size, _ in seen] == list(range(0, 95, 10))
    assert seen[0][1] == [0.5, 0.5]  # never weighted
    assert seen[1][1] == [0.25, 0.75]  # then the last target is the weight in force


def test_a_run_is_reproducible_from_its_seed() -> None:
    first = run_bandit(_fixed([0.5, 0.5]), np.array([0.3, 0.6]), 300, seed=5)
    again = run_bandit(_fixed([0.5, 0.5]), np.array([0.3, 0.6]), 300, seed=5)

    np.testing.assert_array_equal(first.choices, again.choices)
    np.testing.assert_array_equal(first.rewards, again.rewards)


def test_a_strategy_answering_something_other_than_probabilities_is_refused() -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        run_bandit(_fixed([0.5, 0.6]), np.array([0.3, 0.6]), 10, seed=6)


def test_uniform_regret_and_auers_bound_follow_their_formulas() -> None:
    means = np.array([0.9, 0.5, 0.5])

    assert uniform_regret(means, 100) == pytest.approx(100 * (0.9 - 1.9 / 3))
    per_arm = 8 * math.log(100) / 0.4 + (1 + math.pi**2 / 3) * 0.4
    assert ucb1_regret_bound(means, 100) == pytest.approx(2 * per_arm)
