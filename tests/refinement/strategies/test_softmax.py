from __future__ import annotations

import numpy as np
import pytest

from refinement.strategies import Evidence
from refinement.strategies.simulate import run_bandit, uniform_regret
from refinement.strategies.softmax import softmax

MEANS = np.array([0.9, 0.8, 0.5, 0.3, 0.1])
EVIDENCE = Evidence.from_history(3, [0, 1, 1, 2], [0.0, 1.0, 0.6, -1.0])  # means .5, .9, 0


def _entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def test_softmax_is_the_boltzmann_distribution_of_rescaled_mean_rewards() -> None:
    expected = np.exp(np.array([0.5, 0.9, 0.0]) / 0.5)

    np.testing.assert_allclose(softmax(EVIDENCE, {"temperature": 0.5}), expected / expected.sum())


def test_higher_temperature_flattens_the_distribution() -> None:
    entropies = [_entropy(softmax(EVIDENCE, {"temperature": t})) for t in (0.05, 0.2, 1.0, 5.0)]

    assert entropies == sorted(entropies)
    assert len(set(entropies)) == 4
    np.testing.assert_allclose(softmax(EVIDENCE, {"temperature": 1e6}), [1 / 3] * 3, atol=1e-6)


def test_tiny_temperature_is_greedy_and_stays_finite() -> None:
    np.testing.assert_allclose(softmax(EVIDENCE, {"temperature": 1e-6}), [0.0, 1.0, 0.0])


def test_an_untried_arm_weighs_as_much_as_the_best_tried_one() -> None:
    evidence = Evidence.from_history(3, [0, 1], [0.8, -1.0])

    target = softmax(evidence, {"temperature": 0.1})

    assert target[2] == pytest.approx(target[0])
    assert target[0] > target[1]


def test_the_ratio_of_two_arms_does_not_depend_on_the_other_arms() -> None:
    # What a runtime renormalising over a subset needs: the softmax of that subset.
    few = Evidence.from_history(2, [0, 1, 1], [0.0, 1.0, 0.6])
    many = Evidence.from_history(4, [0, 1, 1, 2, 3], [0.0, 1.0, 0.6, 1.0, -1.0])

    a, b = softmax(few, {"temperature": 0.2}), softmax(many, {"temperature": 0.2})

    assert a[1] / a[0] == pytest.approx(b[1] / b[0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_low_temperature_softmax_regret_is_far_below_uniform(seed: int) -> None:
    rounds = 10_000

    result = run_bandit(softmax, MEANS, rounds, seed=seed, params={"temperature": 0.1})

    assert result.regret < uniform_regret(MEANS, rounds) / 5
