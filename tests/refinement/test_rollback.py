"""learn/refinement/rollback: back to the before value, itself a refinement, never twice."""

from __future__ import annotations

import pytest

from refinement.models import Refinement, RefinementStatus
from tests.conftest import Actor
from tests.refinement.conftest import (
    Send,
    apply_req,
    ok,
    refused,
    rollback_req,
    weight,
    weight_proposal,
)


def applied(transport: Send, actor: Actor, old: float, new: float) -> str:
    body = ok(transport(actor, apply_req(weight_proposal("alpha", old, new))))
    assert body["applied_edits"] == 1, body
    return body["refinement_id"]


def test_rollback_restores_the_before_value(transport: Send, agent: Actor) -> None:
    ref = applied(transport, agent, 0.5, 0.55)
    body = ok(transport(agent, rollback_req(ref)))
    assert body["type"] == "learn/refinement/rollback/resp"
    assert body == body | {"refinement_id": ref, "rolled_back": True, "error": ""}
    assert weight("alpha") == pytest.approx(0.5)
    assert Refinement.objects.get(refinement_id=ref).status == RefinementStatus.ROLLED_BACK


def test_a_rollback_can_itself_be_rolled_back(transport: Send, agent: Actor) -> None:
    ref = applied(transport, agent, 0.5, 0.55)
    ok(transport(agent, rollback_req(ref)))
    undo = Refinement.objects.get(rollback_of__refinement_id=ref)
    assert undo.status == RefinementStatus.APPLIED
    body = ok(transport(agent, rollback_req(undo.refinement_id)))
    assert body["rolled_back"] is True
    assert weight("alpha") == pytest.approx(0.55)


def test_rolling_back_twice_is_a_conflict(transport: Send, agent: Actor) -> None:
    ref = applied(transport, agent, 0.5, 0.55)
    ok(transport(agent, rollback_req(ref)))
    body = refused(transport(agent, rollback_req(ref)), 409, "conflict")
    assert "rolled back already" in body["message"]
    assert weight("alpha") == pytest.approx(0.5)


def test_a_rollback_after_a_later_change_is_a_conflict_naming_the_path(
    transport: Send, agent: Actor
) -> None:
    first = applied(transport, agent, 0.5, 0.55)
    applied(transport, agent, 0.55, 0.6)
    body = refused(transport(agent, rollback_req(first)), 409, "conflict")
    assert "router.weights.alpha" in body["message"]
    assert weight("alpha") == pytest.approx(0.6)


def test_an_unknown_refinement_is_not_found(transport: Send, agent: Actor) -> None:
    refused(transport(agent, rollback_req("ref-nope")), 404, "not_found")


def test_a_queued_refinement_cannot_be_rolled_back(transport: Send, agent: Actor) -> None:
    queued = ok(transport(agent, apply_req(weight_proposal("alpha", 0.5, 0.95))))
    refused(transport(agent, rollback_req(queued["refinement_id"])), 409, "conflict")


def test_an_agent_may_not_roll_back_what_another_applied(
    transport: Send, agent: Actor, env: Actor
) -> None:
    ref = applied(transport, env, 0.5, 0.55)
    refused(transport(agent, rollback_req(ref)), 403, "forbidden")
    assert weight("alpha") == pytest.approx(0.55)
    ok(transport(env, rollback_req(ref)))
    assert weight("alpha") == pytest.approx(0.5)


def test_an_agent_may_not_roll_back_a_reviewers_apply_but_a_reviewer_may_roll_back_an_agents(
    transport: Send, agent: Actor, rev: Actor
) -> None:
    queued = ok(transport(agent, apply_req(weight_proposal("alpha", 0.5, 0.95))))
    by_rev = ok(transport(rev, apply_req(weight_proposal("alpha", 0.5, 0.95))))
    assert by_rev["refinement_id"] == queued["refinement_id"]
    refused(transport(agent, rollback_req(by_rev["refinement_id"])), 403, "forbidden")
    assert weight("alpha") == pytest.approx(0.95)
    ok(transport(rev, rollback_req(by_rev["refinement_id"])))
    assert weight("alpha") == pytest.approx(0.5)


def test_an_annotator_may_not_roll_back(transport: Send, agent: Actor, ann: Actor) -> None:
    ref = applied(transport, agent, 0.5, 0.55)
    refused(transport(ann, rollback_req(ref)), 403, "forbidden")
    assert weight("alpha") == pytest.approx(0.55)


def test_a_file_rollback_restores_absence(transport: Send, agent: Actor) -> None:
    from refinement import store
    from refinement.paths import Target, locate

    path = "learnings/_global/references/alpha.md"
    proposal = {
        "target": "skill_file",
        "op": "create",
        "path": path,
        "old_value": None,
        "new_value": "# alpha\n",
    }
    body = ok(transport(agent, apply_req(proposal)))
    assert store.read(locate(Target.SKILL_FILE, path)) == "# alpha\n"
    ok(transport(agent, rollback_req(body["refinement_id"])))
    assert store.read(locate(Target.SKILL_FILE, path)) is None
