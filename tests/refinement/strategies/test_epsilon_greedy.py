from __future__ import annotations

import numpy as np
import pytest

from refinement.strategies import Evidence
from refinement.strategies.epsilon_greedy import epsilon_greedy
from refinement.strategies.simulate import run_bandit, uniform_regret

MEANS = np.array([0.9, 0.8, 0.5, 0.3, 0.1])
EVIDENCE = Evidence.from_history(3, [0, 1, 1, 2], [0.0, 1.0, 0.6, -1.0])  # arm 1 is best


def test_epsilon_zero_is_greedy() -> None:
    assert epsilon_greedy(EVIDENCE, {"epsilon": 0.0}).tolist() == [0.0, 1.0, 0.0]


def test_epsilon_is_spread_uniformly_and_the_rest_goes_to_the_best_mean() -> None:
    target = epsilon_greedy(EVIDENCE, {"epsilon": 0.3})

    np.testing.assert_allclose(target, [0.1, 0.8, 0.1])


def test_epsilon_one_is_uniform() -> None:
    np.testing.assert_allclose(epsilon_greedy(EVIDENCE, {"epsilon": 1.0}), [1 / 3] * 3)


def test_default_epsilon_is_a_tenth() -> None:
    np.testing.assert_allclose(epsilon_greedy(EVIDENCE, {}), [0.1 / 3, 0.9 + 0.1 / 3, 0.1 / 3])


def test_untried_arms_count_as_best_so_the_greedy_part_tries_them() -> None:
    evidence = Evidence.from_history(3, [0], [1.0])  # arm 0 paid the maximum

    np.testing.assert_allclose(epsilon_greedy(evidence, {"epsilon": 0.0}), [1 / 3] * 3)
    evidence = Evidence.from_history(3, [0], [0.9])

    np.testing.assert_allclose(epsilon_greedy(evidence, {"epsilon": 0.0}), [0.0, 0.5, 0.5])


@pytest.mark.parametrize("seed", [0, 1])
def test_epsilon_greedy_regret_is_far_below_uniform(seed: int) -> None:
    rounds = 10_000

    result = run_bandit(epsilon_greedy, MEANS, rounds, seed=seed)

    assert result.regret < uniform_regret(MEANS, rounds) / 5
