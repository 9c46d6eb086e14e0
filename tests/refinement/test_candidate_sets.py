"""A new agent learns on a shared portal (issue 21, item 7): weights are relative to the best of
each candidate set (one owner's components, feedback.attribution.candidate_sets), so another
agent's strong component never squeezes a new agent's components together near the floor."""

from __future__ import annotations

import pytest

from refinement.adapt import targets_for
from tests.builders import adapt_req
from tests.harness import Actor, default_pk, http_send, ok, token_actor
from tests.refinement.helpers import calls, weighted

NEW = ("careful", "balanced", "hasty")


@pytest.fixture
def shared_portal(db: None) -> Actor:
    """Another agent's component, strong and settled at 1.0; the new agent: the `agent` cast."""
    elsewhere = token_actor("elsewhere", "agent")
    calls(elsewhere, "strong", 1000, reward=1.0, success=True)
    for _ in range(5):
        ok(http_send(elsewhere, adapt_req("epsilon_greedy")))
    assert weighted("strong") == 1.0
    return elsewhere


def new_agents_calls(agent: Actor) -> None:
    for name, wins in zip(NEW, (18, 10, 4), strict=True):
        calls(agent, name, wins, reward=1.0, success=True)
        calls(agent, name, 20 - wins, reward=-1.0, success=False)


def test_a_new_agents_best_component_rises_above_its_others_at_once(
    shared_portal: Actor, agent: Actor
) -> None:
    new_agents_calls(agent)
    for _ in range(3):
        ok(http_send(agent, adapt_req("epsilon_greedy")))
    assert weighted("careful") == pytest.approx(0.8)  # three steps up, toward 1.0
    assert weighted("balanced") == weighted("hasty") == pytest.approx(0.2)
    assert weighted("strong") == 1.0  # the other agent's, untouched


def test_small_weights_keep_their_order_within_a_candidate_set(
    shared_portal: Actor, agent: Actor
) -> None:
    new_agents_calls(agent)
    targets = targets_for(default_pk(), "softmax", ["strong", *NEW])
    assert targets["strong"] == targets["careful"] == pytest.approx(1.0)
    assert targets["hasty"] < 1e-6  # softmax starves it: below what 6 decimals can hold
    for _ in range(8):
        ok(http_send(agent, adapt_req("softmax")))
    assert weighted("careful") == 1.0
    assert 1.0 > weighted("balanced") > weighted("hasty") > 0.0
    assert weighted("hasty") == pytest.approx(targets["hasty"], rel=1e-5)


def test_an_environments_adapt_weighs_each_owners_components_against_their_own_best(
    shared_portal: Actor, agent: Actor, env: Actor
) -> None:
    new_agents_calls(agent)
    body = ok(http_send(env, adapt_req("epsilon_greedy")))
    assert {r["component_name"] for r in body["updated"]} == set(NEW)
    assert weighted("careful") == pytest.approx(0.6)
    assert weighted("strong") == 1.0
