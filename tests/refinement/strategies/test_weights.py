"""What a weight means for any candidate set: order kept whatever other components exist."""

from __future__ import annotations

import numpy as np
import pytest

from refinement.strategies import BUILTIN_STRATEGIES, Evidence, StrategyFn
from refinement.strategies.base import monotone_in, relative_to_best, with_untried
from refinement.strategies.thompson import thompson

STRATEGIES: dict[str, StrategyFn] = {**BUILTIN_STRATEGIES, "thompson": thompson}


def _agent_and_others(seed: int) -> tuple[Evidence, np.ndarray]:
    """Arms 0-5 the agent's (40 pulls each, success counts rising), 6-7 another agent's
    (one better than all of the agent's), 8-9 demo components with no experience."""
    rng = np.random.default_rng(seed)
    arm, reward = [], []
    for a, quality in enumerate([0.2, 0.35, 0.5, 0.6, 0.7, 0.8, 0.95, 0.4]):
        wins = round(quality * 40) if a < 6 else int(rng.binomial(200, quality))
        pulls = 40 if a < 6 else 200
        arm += [a] * pulls
        reward += [1.0] * wins + [-1.0] * (pulls - wins)
    order = rng.permutation(len(arm))
    evidence = Evidence.from_history(
        10, np.array(arm)[order], np.array(reward)[order], current=rng.uniform(0, 1, 10)
    )
    return evidence, np.arange(6)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", STRATEGIES)
def test_a_better_component_never_weighs_less_on_any_candidate_set(name: str, seed: int) -> None:
    # PPO learns from the policy in force, not from totals: its order is the loop's to show.
    if name == "ppo":
        pytest.skip("PPO's weights follow its policy; tests/refinement/test_learning_loop.py")
    evidence, agent = _agent_and_others(seed)
    weights = relative_to_best(STRATEGIES[name](evidence, {}))
    rng = np.random.default_rng(seed)

    for _ in range(20):
        candidates = rng.choice(agent, size=rng.integers(2, 7), replace=False)
        share = weights[candidates] / weights[candidates].sum()
        # Same pulls, more successes: better on the evidence, so never a smaller share.
        better_first = np.argsort(-candidates)
        assert (np.diff(share[better_first]) <= 1e-12).all(), (name, candidates, share)
    assert weights[agent].max() > 0  # the agent's best is not starved by the other agent's


def test_untried_components_weigh_as_the_best_and_leave_the_rest_in_proportion() -> None:
    shares = with_untried(np.array([0.6, 0.3, 0.1, 0.0, 0.0]), np.array([1, 1, 1, 0, 0], bool))

    np.testing.assert_allclose(relative_to_best(shares), [1.0, 0.5, 1 / 6, 1.0, 1.0])


def test_monotone_in_lifts_a_better_arm_to_the_share_of_a_worse_one() -> None:
    raised = monotone_in(np.array([0.1, 0.6, 0.3]), np.array([0.2, 0.5, 0.9]))

    np.testing.assert_allclose(raised, np.array([0.1, 0.6, 0.6]) / 1.3)


def test_weights_are_relative_to_the_most_favoured_component() -> None:
    np.testing.assert_allclose(relative_to_best(np.array([0.2, 0.5, 0.3])), [0.4, 1.0, 0.6])
    np.testing.assert_allclose(relative_to_best(np.zeros(3)), [1.0, 1.0, 1.0])
