"""The learning loop, short: an agent routed by the portal gets better under every strategy.

The runtime of bench/learning/runtime.py (10 components of quality 0.1 … 0.9, weights read per batch of 20
turns and renormalised over its candidates, experiences with `action_prob` and `success`, an
adapt per batch, demo and other agents' components present), through the public API in
process: 600 turns and one seed instead of the bench's 2,000 and five, with looser bounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from bench.learning import portals, runtime, summary
from tests.builders import next_id

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Actor

TURNS = 600
SEED = 0


class InProcessHost:
    """bench.learning.runtime's `Host` over the test client: the same requests a live runtime sends."""

    def __init__(self, actor: Actor) -> None:
        self.actor = actor

    def _learn(self, body: dict[str, Any]) -> None:
        response = self.actor.learn(body)
        assert response.status_code == 200, response.json()

    def routing(self) -> dict[str, float]:
        response = self.actor.rest("get", "/api/routing/")
        assert response.status_code == 200
        weights: dict[str, float] = response.json()["weights"]
        return weights

    def report(self, experiences: list[dict[str, Any]]) -> None:
        self._learn(
            {"type": "learn/experience/req", "id": next_id("le"), "experiences": experiences}
        )

    def feedback(self, component: str, score: float) -> None:
        item = {
            "feedback_id": next_id("fb"),
            "polarity": "positive",
            "score": score,
            "component_name": component,
        }
        self._learn({"type": "learn/feedback/req", "id": next_id("lf"), "feedbacks": [item]})

    def adapt(self, strategy: str) -> None:
        self._learn({"type": "learn/adapt/req", "id": next_id("la"), "strategy": strategy})


@pytest.mark.parametrize("strategy", summary.STRATEGIES)
def test_an_agent_routed_by_the_portal_learns_the_best_component_under_every_strategy(
    agent: Actor, settings: Settings, strategy: str
) -> None:
    settings.LEARNPORTAL_CUSTOM_STRATEGY = portals.CUSTOM
    thompson = runtime.offline_thompson(TURNS, SEED)

    result = runtime.run_loop(InProcessHost(agent), strategy, turns=TURNS, seed=SEED)

    assert result.last_share(150) >= 0.85
    assert result.regret <= 3.0 * thompson.regret
    final = result.weights[-1]
    assert final.argmax() == runtime.ARMS.argmax()
    assert runtime.inverted_pairs(final, runtime.ARMS) == 0
    assert result.max_step <= runtime.STEP + 1e-9


def test_the_runtime_renormalises_the_weights_over_its_own_candidates() -> None:
    rng = np.random.default_rng(0)
    weights = {name: 0.0 for name in runtime.AGENT} | {runtime.AGENT[3]: 0.2, "someone-else": 1.0}

    picks = {runtime.choose(weights, rng) for _ in range(20)}

    assert picks == {(3, 1.0)}


def test_ppo_weights_follow_when_the_best_component_gets_worse() -> None:
    # The bench's swap run on the model of the host's adapt (bench.learning.model_host.ModelHost, the same
    # strategy and trust-region arithmetic in process): 2,000 turns, the best arm's quality
    # exchanged with arm 5's at turn 1,000, a replay window of 200.
    (result,) = summary.model_runs(
        "ppo",
        {},
        [SEED],
        2000,
        swap_at=1000,
        window=summary.WINDOW_NONSTATIONARY,
    )

    follow = result.follow_turns(1000)
    assert follow is not None and follow <= summary.TARGETS["follow"]
    assert result.max_step <= runtime.STEP + 1e-9
