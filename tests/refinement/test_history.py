"""learn/refinement/history: every step of the lifecycle, with actor, time and diff."""

from __future__ import annotations

import time

from tests.builders import (
    adapt_req,
    apply_req,
    history_req,
    plan_req,
    review_req,
    rollback_req,
    weight_proposal,
)
from tests.harness import Actor, Send, ok, refused
from tests.refinement.helpers import corrections, two_arms


def test_history_lists_every_kind_with_actor_ts_and_diff(
    transport: Send, agent: Actor, rev: Actor
) -> None:
    started = time.time()
    two_arms(agent)
    corrections(agent, "alpha", ["Quote the source line."])
    ok(transport(agent, plan_req()))
    ok(transport(agent, review_req(weight_proposal("alpha", 0.5, 0.55))))
    applied = ok(transport(agent, apply_req(weight_proposal("alpha", 0.5, 0.55))))
    queued = ok(transport(agent, apply_req(weight_proposal("beta", 0.5, 0.95))))
    ok(transport(agent, rollback_req(applied["refinement_id"])))
    ok(transport(agent, adapt_req("epsilon_greedy")))
    body = ok(transport(rev, history_req()))
    assert body["type"] == "learn/refinement/history/resp"
    entries = body["entries"]
    kinds = {e["kind"] for e in entries}
    assert {"plan", "review", "apply", "queue", "rollback", "adapt"} <= kinds
    for entry in entries:
        assert entry["actor"] == "token:agent-1"
        assert started - 1 <= entry["ts"] <= time.time() + 1
        assert isinstance(entry["diff"], list)
    assert [e["ts"] for e in entries] == sorted((e["ts"] for e in entries), reverse=True)

    apply = next(e for e in entries if e["kind"] == "apply" and e["diff"][0]["after"] == 0.55)
    assert apply["refinement_id"] == applied["refinement_id"]
    assert apply["diff"] == [
        {"path": "router.weights.alpha", "target": "router_weight", "before": 0.5, "after": 0.55}
    ]
    queue = next(e for e in entries if e["kind"] == "queue")
    assert queue["refinement_id"] == queued["refinement_id"]
    assert "approval" in queue["message"]
    rollback = next(e for e in entries if e["kind"] == "rollback")
    assert applied["refinement_id"] in rollback["message"]
    assert rollback["diff"][0]["before"] == 0.55 and rollback["diff"][0]["after"] == 0.5
    adapt = next(e for e in entries if e["kind"] == "adapt")
    # alpha was just rolled back, so it is medium risk: above the low limit, adapt leaves it to
    # a reviewer and steps only beta.
    assert {d["component"] for d in adapt["diff"]} == {"beta"}
    assert all({"before", "after", "target"} <= set(d) for d in adapt["diff"])
    plan = next(e for e in entries if e["kind"] == "plan")
    assert plan["plan_id"] and plan["diff"]


def test_a_refused_request_leaves_no_history(transport: Send, agent: Actor) -> None:
    refused(transport(agent, apply_req(weight_proposal("alpha", 0.4, 0.45))), 409, "conflict")
    assert ok(transport(agent, history_req()))["entries"] == []


def test_an_annotator_may_not_read_the_history(transport: Send, ann: Actor) -> None:
    refused(transport(ann, history_req()), 403, "forbidden")
