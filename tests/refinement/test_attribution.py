"""No agent starves another's component (issue 21, item 6): evidence is attributed to who
reported it. An agent speaks for the components it reported calls of first; environments (and
reviewers, admins) for every one (LEARNPORTAL_SPEAK_FOR_ALL_ROLES)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from feedback.models import ComponentOwner, ComponentStats
from refinement.adapt import targets_for
from refinement.models import HistoryEntry, Plan
from tests.builders import adapt_req, apply_req, weight_proposal
from tests.harness import default_pk, http_send, ok, refused, token_actor
from tests.refinement.helpers import calls, two_arms, weight, weighted

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Actor


@pytest.fixture
def poisoner(db: None) -> Actor:
    return token_actor("agent-2", "agent")


def alpha_target(actor: Actor) -> float:
    ok(http_send(actor, adapt_req("epsilon_greedy")))
    entry = HistoryEntry.objects.filter(kind="adapt").latest("ts")
    return next(d["target"] for d in entry.diff if d["component"] == "alpha")


def test_the_first_agent_to_report_a_components_calls_owns_it(
    agent: Actor, poisoner: Actor
) -> None:
    calls(agent, "alpha", 3, reward=1.0)
    calls(poisoner, "alpha", 3, reward=-1.0)
    calls(poisoner, "gamma", 3, reward=1.0)

    owners = dict(ComponentOwner.objects.values_list("component_name", "owner"))
    assert owners == {"alpha": "token:agent-1", "gamma": "token:agent-2"}
    # Every reported call is counted as a call; only the owner's are evidence.
    assert ComponentStats.objects.get(component_name="alpha").calls_total == 6


def test_a_thousand_made_up_failures_do_not_move_another_agents_component(
    agent: Actor, poisoner: Actor
) -> None:
    two_arms(agent)
    for _ in range(8):
        ok(http_send(agent, adapt_req("epsilon_greedy")))
    settled = weighted("alpha")
    assert settled > 0.9

    calls(poisoner, "alpha", 1000, reward=-1.0, success=False)
    calls(poisoner, "gamma", 5, reward=1.0)
    for _ in range(12):
        body = ok(http_send(poisoner, adapt_req("epsilon_greedy")))
        assert [r["component_name"] for r in body["updated"]] in ([], ["gamma"])

    assert weighted("alpha") == settled
    # Nor are they evidence in the owner's own adapts: alpha is still its best component.
    assert targets_for(default_pk(), "epsilon_greedy", ["alpha", "beta"])["alpha"] == pytest.approx(
        1.0
    )
    ok(http_send(agent, adapt_req("epsilon_greedy")))
    assert weighted("alpha") == settled


def test_an_adapt_of_another_agents_component_is_forbidden_and_names_the_field(
    agent: Actor, poisoner: Actor
) -> None:
    two_arms(agent)
    body = refused(http_send(poisoner, adapt_req("ucb1", "alpha")), 403, "forbidden")
    assert body["details"][0]["loc"] == ["component_name"]
    assert "another principal's component" in body["message"]
    assert weight("alpha") is None


def test_an_agents_own_adapts_still_converge_beside_a_poisoner(
    agent: Actor, poisoner: Actor
) -> None:
    two_arms(agent)
    calls(poisoner, "beta", 1000, reward=1.0, success=True)  # made-up successes, as well
    for _ in range(8):
        ok(http_send(agent, adapt_req("epsilon_greedy")))
    assert weight("alpha") == pytest.approx(1.0)
    assert weighted("beta") < 0.5  # beta's own record, not the poisoner's
    # Settled: the next adapt has nothing left to move and files nothing for a reviewer.
    assert ok(http_send(agent, adapt_req("epsilon_greedy")))["updated"] == []
    assert Plan.objects.filter(origin="adapt").latest("created").status == "empty"


def test_an_environments_evidence_counts_for_every_component(agent: Actor, env: Actor) -> None:
    two_arms(agent)
    assert alpha_target(agent) == pytest.approx(1.0)
    calls(env, "alpha", 300, reward=-1.0, success=False)
    calls(env, "beta", 300, reward=1.0, success=True)
    assert alpha_target(agent) < 0.5


def test_an_environment_may_adapt_any_component(agent: Actor, env: Actor) -> None:
    two_arms(agent)
    body = ok(http_send(env, adapt_req("epsilon_greedy", "alpha")))
    assert [r["component_name"] for r in body["updated"]] == ["alpha"]
    assert weight("alpha") == pytest.approx(0.6)


def test_who_speaks_for_all_is_a_setting(agent: Actor, env: Actor, settings: Settings) -> None:
    settings.LEARNPORTAL_SPEAK_FOR_ALL_ROLES = ["admin"]
    two_arms(agent)
    refused(http_send(env, adapt_req("epsilon_greedy", "alpha")), 403, "forbidden")


def test_a_machines_apply_of_another_agents_weight_waits_for_a_person(
    agent: Actor, poisoner: Actor, rev: Actor
) -> None:
    two_arms(agent)  # alpha is agent-1's, and not weighted yet: 0.5
    proposal = weight_proposal("alpha", 0.5, 0.45)
    queued: dict[str, Any] = ok(http_send(poisoner, apply_req(proposal)))
    assert queued["applied_edits"] == 0 and queued["refinement_id"]
    assert "another principal's component" in queued["error"]
    assert weight("alpha") is None
    # A reviewer is the person it waits for.
    assert ok(http_send(rev, apply_req(proposal)))["applied_edits"] == 1
    assert weighted("alpha") == pytest.approx(0.45)
