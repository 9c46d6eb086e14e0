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


def test_default_epsilon_is_three_hundredths() -> None:
    np.testing.assert_allclose(epsilon_greedy(EVIDENCE, {}), [0.01, 0.97 + 0.01, 0.01])


def test_an_untried_arm_weighs_as_much_as_the_best_and_takes_none_of_its_mass() -> None:
    # Arms 3 and 4 have no data: each weighs as the best tried arm, and the tried arms keep
    # exactly the shares they have without them.
    evidence = Evidence.from_history(5, [0, 1, 1, 2], [0.0, 1.0, 0.6, -1.0])

    target = epsilon_greedy(evidence, {"epsilon": 0.3})

    np.testing.assert_allclose(target / target.max(), [0.1 / 0.8, 1.0, 0.1 / 0.8, 1.0, 1.0])


def test_with_no_arm_tried_every_arm_weighs_the_same() -> None:
    np.testing.assert_allclose(epsilon_greedy(Evidence.from_history(4, [], []), {}), [0.25] * 4)


@pytest.mark.parametrize("seed", [0, 1])
def test_epsilon_greedy_regret_is_far_below_uniform(seed: int) -> None:
    rounds = 10_000

    result = run_bandit(epsilon_greedy, MEANS, rounds, seed=seed)

    assert result.regret < uniform_regret(MEANS, rounds) / 5
