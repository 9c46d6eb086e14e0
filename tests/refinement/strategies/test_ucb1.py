from __future__ import annotations

import math

import numpy as np
import pytest

from refinement.strategies import Evidence
from refinement.strategies.simulate import run_bandit, ucb1_regret_bound, uniform_regret
from refinement.strategies.ucb1 import ucb1, ucb1_index

MEANS = np.array([0.9, 0.8, 0.5, 0.3, 0.1])


def test_ucb1_tries_every_arm_before_exploiting() -> None:
    # Arm 0 has paid perfectly, yet arms 1 and 3 have never been tried: they come first.
    evidence = Evidence.from_history(4, [0, 0, 0, 2], [1.0, 1.0, 1.0, -1.0])

    assert ucb1(evidence, {}).tolist() == [0.0, 0.5, 0.0, 0.5]


def test_ucb1_pulls_each_arm_once_at_the_start_of_a_run() -> None:
    result = run_bandit(ucb1, MEANS, 5, seed=3)

    assert sorted(result.choices.tolist()) == [0, 1, 2, 3, 4]


def test_ucb1_index_is_auers_on_rewards_rescaled_to_unit_interval() -> None:
    arm = [0, 0, 1, 2, 2, 2]
    reward = [1.0, -1.0, 0.5, -1.0, 0.0, 1.0]
    evidence = Evidence.from_history(3, arm, reward)
    n = len(arm)
    expected = []
    for k in range(3):
        pulled = [(r + 1) / 2 for a, r in zip(arm, reward, strict=True) if a == k]
        expected.append(sum(pulled) / len(pulled) + math.sqrt(2 * math.log(n) / len(pulled)))

    np.testing.assert_allclose(ucb1_index(evidence, math.sqrt(2)), expected)
    assert ucb1(evidence, {}).tolist() == [0.0, 1.0, 0.0]  # one pull at 0.75 has the top index


def test_ucb1_exploration_bonus_prefers_a_rarely_pulled_arm_over_a_slightly_better_one() -> None:
    arm = np.r_[np.zeros(1000, dtype=np.int64), [1, 1]]
    reward = np.r_[np.full(1000, 0.2), [0.0, 0.0]]  # rescaled means 0.6 and 0.5
    evidence = Evidence.from_history(2, arm, reward)

    assert ucb1(evidence, {}).tolist() == [0.0, 1.0]
    assert ucb1(evidence, {"ucb_c": 0.0}).tolist() == [1.0, 0.0]  # no bonus: greedy


def test_ucb1_splits_ties_evenly() -> None:
    evidence = Evidence.from_history(3, [0, 1, 2], [1.0, 1.0, -1.0])

    assert ucb1(evidence, {}).tolist() == [0.5, 0.5, 0.0]


@pytest.mark.parametrize("seed", [0, 1])
def test_ucb1_regret_is_far_below_uniform_and_within_auers_bound(seed: int) -> None:
    rounds = 10_000

    result = run_bandit(ucb1, MEANS, rounds, seed=seed)

    assert result.regret < uniform_regret(MEANS, rounds) / 5
    assert result.regret < ucb1_regret_bound(MEANS, rounds)
    assert np.bincount(result.choices).argmax() == 0
