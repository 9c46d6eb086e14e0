"""Every strategy, built-in or the example custom one, must answer with selection probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from refinement.strategies import BUILTIN_STRATEGIES, Evidence, StrategyFn
from refinement.strategies.thompson import thompson

STRATEGIES: dict[str, StrategyFn] = {**BUILTIN_STRATEGIES, "thompson": thompson}


def _sparse_many_arms() -> Evidence:
    rng = np.random.default_rng(7)
    arm = rng.integers(0, 40, size=300)  # arms 40..999 never tried
    return Evidence.from_history(1000, arm, rng.uniform(-1, 1, size=300))


CASES: dict[str, Evidence] = {
    "no experiences": Evidence.from_history(5, [], []),
    "one arm with data": Evidence.from_history(1, [0, 0, 0], [1.0, -1.0, 0.5]),
    "one arm without data": Evidence.from_history(1, [], []),
    "some arms without data": Evidence.from_history(4, [1, 1, 3], [1.0, 0.0, -1.0]),
    "identical rewards": Evidence.from_history(3, [0, 1, 2, 0], [0.2, 0.2, 0.2, 0.2]),
    "all weights zero": Evidence.from_history(3, [0, 1], [1.0, -1.0], current=np.zeros(3)),
    "known behaviour": Evidence.from_history(
        2, [0, 1, 0], [1.0, -1.0, 1.0], behaviour_prob=[0.5, 0.5, 0.5]
    ),
    "many arms, sparse data": _sparse_many_arms(),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", STRATEGIES)
def test_strategy_returns_a_probability_vector(name: str, case: str) -> None:
    evidence = CASES[case]

    target = STRATEGIES[name](evidence, {})

    assert target.dtype == np.float64
    assert target.shape == (evidence.n_arms,)
    assert np.isfinite(target).all()
    assert (target >= 0).all() and (target <= 1).all()
    assert target.sum() == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("name", STRATEGIES)
def test_strategy_leaves_the_evidence_untouched_and_answers_the_same_twice(name: str) -> None:
    evidence = Evidence.from_history(
        3, [0, 1, 2, 1], [1.0, -0.5, 0.0, 0.5], behaviour_prob=[0.3, np.nan, 0.4, 0.3]
    )
    before = [a.copy() for a in (evidence.arm, evidence.reward, evidence.current)]

    first = STRATEGIES[name](evidence, {})
    second = STRATEGIES[name](evidence, {})

    np.testing.assert_array_equal(first, second)
    for old, new in zip(before, (evidence.arm, evidence.reward, evidence.current), strict=True):
        np.testing.assert_array_equal(old, new)
