"""learn/refinement/plan: proposals from the data, each with the real current value."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from refinement.models import Plan
from refinement.paths import weight_path
from tests.builders import apply_req, plan_req
from tests.factories import StoreValueFactory
from tests.harness import Actor, Send, http_send, ok, refused
from tests.refinement.helpers import calls, corrections, two_arms

if TYPE_CHECKING:
    from pytest_django import Settings

REF = "learnings/_global/references/alpha.md"


def by_path(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["path"]: p for p in body["proposals"]}


def test_corrections_become_a_reference_file(transport: Send, agent: Actor) -> None:
    calls(agent, "alpha", 3, reward=0.5)
    corrections(agent, "alpha", ["Quote the source line.", "Never guess the version."])
    body = ok(transport(agent, plan_req("alpha")))
    assert body["type"] == "learn/refinement/plan/resp"
    assert body["status"] == "ready"
    assert body["plan_id"]
    proposal = by_path(body)[REF]
    assert proposal["target"] == "skill_file"
    assert proposal["op"] == "create"
    assert proposal["old_value"] is None
    assert "Quote the source line." in proposal["new_value"]
    assert "Never guess the version." in proposal["new_value"]
    assert proposal["plan_id"] == body["plan_id"]
    assert proposal["proposal_id"]
    assert Plan.objects.get(plan_id=body["plan_id"]).requested_by == "token:agent-1"


def test_the_next_plan_updates_the_reference_from_its_real_text(
    transport: Send, agent: Actor
) -> None:
    calls(agent, "alpha", 3, reward=0.5)
    corrections(agent, "alpha", ["Quote the source line."])
    first = by_path(ok(transport(agent, plan_req("alpha"))))[REF]
    applied = ok(transport(agent, apply_req(first)))
    assert applied["applied_edits"] == 1, applied
    corrections(agent, "alpha", ["Cite the ticket."])
    second = by_path(ok(transport(agent, plan_req("alpha"))))[REF]
    assert second["op"] == "update"
    assert second["old_value"] == first["new_value"]
    assert "Cite the ticket." in second["new_value"]
    assert "Quote the source line." in second["new_value"]


def test_weight_proposals_carry_the_real_current_weight(transport: Send, agent: Actor) -> None:
    StoreValueFactory.create(component="alpha", value=0.42)
    StoreValueFactory.create(component="beta", value=0.58)
    two_arms(agent)
    body = ok(transport(agent, plan_req()))
    proposals = by_path(body)
    assert proposals[weight_path("alpha")]["old_value"] == pytest.approx(0.42)
    assert proposals[weight_path("beta")]["old_value"] == pytest.approx(0.58)
    assert proposals[weight_path("alpha")]["new_value"] > 0.42


def test_unweighted_components_are_proposed_from_one_half(agent: Actor, settings: Settings) -> None:
    settings.LEARNPORTAL_ADAPT_STRATEGIES = ["epsilon_greedy"]
    two_arms(agent)
    proposals = by_path(ok(http_send(agent, plan_req())))
    assert proposals[weight_path("alpha")]["old_value"] == 0.5
    # Weights relative to the best (README, "Routing weights"): epsilon-greedy's 0.985, 0.015.
    assert proposals[weight_path("alpha")]["new_value"] == pytest.approx(1.0)
    assert proposals[weight_path("beta")]["new_value"] == pytest.approx(0.015 / 0.985, abs=1e-6)


def test_no_data_is_an_empty_plan(transport: Send, agent: Actor) -> None:
    body = ok(transport(agent, plan_req()))
    assert body["status"] == "empty"
    assert body["proposals"] == []


def test_a_plan_for_an_unknown_component_is_not_found(transport: Send, agent: Actor) -> None:
    refused(transport(agent, plan_req("nobody")), 404, "not_found")


def test_an_annotator_may_not_plan(transport: Send, ann: Actor) -> None:
    refused(transport(ann, plan_req()), 403, "forbidden")


def test_a_plan_for_fresh_components_proposes_weights_with_the_default_strategy(
    agent: Actor,
) -> None:
    two_arms(agent)
    proposals = by_path(ok(http_send(agent, plan_req())))
    assert weight_path("alpha") in proposals


def test_a_plan_is_done_once_every_proposal_is_decided(agent: Actor, rev: Actor) -> None:
    two_arms(agent)
    corrections(agent, "alpha", ["Quote the source line."])
    body = ok(http_send(agent, plan_req()))
    proposals = body["proposals"]
    # Two weights and a reference: the plan stays ready while any one of them is open.
    assert len(proposals) == 3, proposals
    assert Plan.objects.get(plan_id=body["plan_id"]).status == "ready"
    *first, last = proposals
    for proposal in first:
        assert ok(http_send(rev, apply_req(proposal)))["applied_edits"] == 1
    assert Plan.objects.get(plan_id=body["plan_id"]).status == "ready"
    rejected = rev.client.post(
        f"/api/proposals/{last['proposal_id']}/reject/", {"reason": "not now"}, format="json"
    )
    assert rejected.status_code == 200, rejected.json()
    assert Plan.objects.get(plan_id=body["plan_id"]).status == "done"


def test_every_planned_proposal_comes_with_its_automatic_review(agent: Actor) -> None:
    from refinement.models import Review

    two_arms(agent)
    body = ok(http_send(agent, plan_req()))
    proposed = {p["path"] for p in body["proposals"]}
    assert proposed == {weight_path("alpha"), weight_path("beta")}
    for proposal in body["proposals"]:
        review = Review.objects.get(proposal__proposal_id=proposal["proposal_id"])
        assert review.kind == "auto"
        assert review.risk_level in {"low", "medium", "high"}
