from __future__ import annotations

from typing import TYPE_CHECKING, Any

from refinement.models import ProposalStatus, StoreValue
from tests.refinement.learning_store.helpers import filed_run, learn

if TYPE_CHECKING:
    from tests.harness import Actor

JUMP = {
    "target": "router_weight",
    "op": "update",
    "path": "router.weights.search",
    "old_value": 0.5,
    "new_value": 0.9,
    "proposal_id": "prop-jump",
}


def _approve(actor: Actor, proposal_id: str) -> Any:
    return actor.rest("post", f"/api/proposals/{proposal_id}/approve/", {"note": ""})


def test_a_reviewer_cannot_approve_what_they_requested(rev: Actor, rev2: Actor) -> None:
    learn(rev, "review", proposal=JUMP)

    refused = _approve(rev, "prop-jump")

    assert refused.status_code == 403
    assert refused.json()["code"] == "forbidden"
    assert _approve(rev2, "prop-jump").status_code == 200


def test_an_agent_or_annotator_cannot_decide(agent: Actor, ann: Actor, boss: Actor) -> None:
    plan = filed_run(agent, boss)
    pid = plan["proposals"][0]["proposal_id"]

    for actor in (agent, ann):
        assert _approve(actor, pid).status_code == 403
        assert actor.client.get("/api/plans/").status_code == 403


def test_a_rejection_needs_a_reason(agent: Actor, boss: Actor, rev: Actor) -> None:
    pid = filed_run(agent, boss)["proposals"][0]["proposal_id"]

    assert rev.rest("post", f"/api/proposals/{pid}/reject/", {"reason": " "}).status_code == 400
    assert rev.rest("post", f"/api/proposals/{pid}/reject/", {}).status_code == 400
    rejected = rev.rest("post", f"/api/proposals/{pid}/reject/", {"reason": "too vague"})
    assert rejected.json()["status"] == ProposalStatus.REJECTED


def test_an_approval_is_dropped_when_the_proposal_changes(agent: Actor, rev: Actor) -> None:
    queued = learn(agent, "apply", proposal=JUMP)
    assert queued["applied_edits"] == 0 and "awaits approval" in queued["error"]
    assert _approve(rev, "prop-jump").status_code == 200

    changed = learn(agent, "apply", proposal={**JUMP, "new_value": 0.95})

    assert changed["applied_edits"] == 0
    assert "awaits approval" in changed["error"]
    assert not StoreValue.objects.filter(path="router.weights.search").exclude(value=None).exists()


def test_an_approval_lets_the_same_proposal_apply(agent: Actor, rev: Actor) -> None:
    learn(agent, "apply", proposal=JUMP)
    _approve(rev, "prop-jump")

    applied = learn(agent, "apply", proposal=JUMP)

    assert applied["applied_edits"] == 1, applied
    assert rev.client.get("/api/routing/").json()["weights"] == {"search": 0.9}


def test_an_applied_refinement_rolls_back_over_rest(agent: Actor, boss: Actor, rev: Actor) -> None:
    pid = filed_run(agent, boss)["proposals"][0]["proposal_id"]
    refinement_id = rev.rest("post", f"/api/proposals/{pid}/apply/").json()["refinement_id"]

    undone = rev.rest("post", f"/api/refinements/{refinement_id}/rollback/").json()

    assert undone["rolled_back"] is True
    assert rev.client.get("/api/skills/").json() == []
    kinds = [e["kind"] for e in rev.client.get("/api/history/").json()["entries"]]
    assert kinds[:2] == ["rollback", "apply"]


def test_a_reviewer_cannot_approve_a_plan_they_requested(
    agent: Actor, rev: Actor, rev2: Actor
) -> None:
    experiences = [
        {"experience_id": f"exp-{name}-{i}", "action": {"component_name": name}, "reward": reward}
        for name, reward in (("fast", 1.0), ("slow", -1.0))
        for i in range(30)
    ]
    agent.learn({"type": "learn/experience/req", "id": "le-1", "experiences": experiences})
    plan = learn(rev, "plan")
    assert plan["proposals"], plan
    pid = plan["proposals"][0]["proposal_id"]

    refused = _approve(rev, pid)

    assert refused.status_code == 403
    assert "another reviewer" in refused.json()["message"]
    assert _approve(rev2, pid).status_code == 200
