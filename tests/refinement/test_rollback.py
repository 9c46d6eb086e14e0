"""learn/refinement/rollback: back to the before value, itself a refinement, never twice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from core.accounts.principals import principal_for_token
from refinement import store
from refinement.adapt import WeightStep, weights_apply
from refinement.models import HistoryEntry, Plan, Refinement, RefinementStatus, Step
from refinement.paths import Target, weight_path
from refinement.services.rollback import refinement_rollback
from tests.builders import apply_req, file_proposal, rollback_req, weight_proposal
from tests.factories import StepFactory
from tests.harness import Actor, Send, default_pk, http_send, ok, refused
from tests.refinement.helpers import value_at, weight

if TYPE_CHECKING:
    from pytest_django import Settings

REF = "learnings/_global/references/alpha.md"


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


def test_a_reviewer_may_roll_back_a_rollback(transport: Send, agent: Actor, rev: Actor) -> None:
    ref = applied(transport, agent, 0.5, 0.55)
    ok(transport(agent, rollback_req(ref)))
    undo = Refinement.objects.get(rollback_of__refinement_id=ref)
    assert undo.status == RefinementStatus.APPLIED
    body = ok(transport(rev, rollback_req(undo.refinement_id)))
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


def test_a_file_rollback_restores_absence(transport: Send, agent: Actor, rev: Actor) -> None:
    body = ok(transport(agent, apply_req(file_proposal(REF, None, "# alpha\n"))))
    assert value_at(Target.SKILL_FILE, REF) == "# alpha\n"
    # Undoing a create deletes the file: high risk, so the agent's rollback waits for a person.
    queued = ok(transport(agent, rollback_req(body["refinement_id"])))
    assert queued["rolled_back"] is False and "reviewer" in queued["error"]
    assert value_at(Target.SKILL_FILE, REF) == "# alpha\n"
    ok(transport(rev, rollback_req(body["refinement_id"])))
    assert value_at(Target.SKILL_FILE, REF) is None


# --- a rollback is a refinement: the same review and risk gate as an apply ------------------


def rolled_back_once(transport: Send, agent: Actor) -> Refinement:
    """The agent applies alpha 0.5 → 0.55 and rolls it back: the rollback it may roll back."""
    first = applied(transport, agent, 0.5, 0.55)
    assert ok(transport(agent, rollback_req(first)))["rolled_back"] is True
    return Refinement.objects.get(rollback_of__refinement_id=first)


def test_an_agent_cannot_make_a_queued_change_live_by_rolling_back_its_rollback(
    transport: Send, agent: Actor
) -> None:
    undo = rolled_back_once(transport, agent)
    again = ok(transport(agent, apply_req(weight_proposal("alpha", 0.5, 0.55))))
    assert again["applied_edits"] == 0 and "approval" in again["error"]

    body = ok(transport(agent, rollback_req(undo.refinement_id)))

    assert body["type"] == "learn/refinement/rollback/resp"
    assert body["refinement_id"] == undo.refinement_id
    assert body["rolled_back"] is False
    assert "awaits approval by a reviewer" in body["error"]
    assert "rolled back in the last 7 days" in body["error"]
    assert weight("alpha") == pytest.approx(0.5)
    undo.refresh_from_db()
    assert undo.status == RefinementStatus.APPLIED
    queued = Refinement.objects.get(rollback_of=undo)
    assert queued.status == RefinementStatus.QUEUED
    assert queued.edits == [
        {"path": weight_path("alpha"), "target": "router_weight", "before": 0.5, "after": 0.55}
    ]
    entry = HistoryEntry.objects.get(kind="queue", refinement_id=queued.refinement_id)
    assert "awaits approval" in entry.message


def test_asking_again_for_a_queued_rollback_returns_the_same_one(
    transport: Send, agent: Actor
) -> None:
    undo = rolled_back_once(transport, agent)
    first = ok(transport(agent, rollback_req(undo.refinement_id)))
    second = ok(transport(agent, rollback_req(undo.refinement_id)))
    assert first["rolled_back"] is second["rolled_back"] is False
    assert second["error"] == first["error"]
    assert Refinement.objects.filter(status=RefinementStatus.QUEUED).count() == 1
    assert weight("alpha") == pytest.approx(0.5)


def test_a_reviewers_rollback_applies_the_queued_rollback(agent: Actor, rev: Actor) -> None:
    undo = rolled_back_once(http_send, agent)
    ok(http_send(agent, rollback_req(undo.refinement_id)))
    queued = Refinement.objects.get(rollback_of=undo)

    response = rev.client.post(f"/api/refinements/{undo.refinement_id}/rollback/")

    assert response.status_code == 200, response.json()
    assert response.json() == {
        "refinement_id": undo.refinement_id,
        "rolled_back": True,
        "error": "",
        "rollback_refinement_id": queued.refinement_id,
    }
    assert weight("alpha") == pytest.approx(0.55)
    queued.refresh_from_db()
    assert (queued.status, queued.actor, queued.error) == (RefinementStatus.APPLIED, "user:rev", "")
    undo.refresh_from_db()
    assert undo.status == RefinementStatus.ROLLED_BACK


def test_an_agents_rollback_above_the_auto_apply_risk_waits_for_a_reviewer(
    transport: Send, agent: Actor, rev: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "medium"
    ref = applied(transport, agent, 0.5, 0.7)
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "low"

    body = ok(transport(agent, rollback_req(ref)))

    assert body["rolled_back"] is False
    assert "risk is medium" in body["error"] and "'low'" in body["error"]
    assert weight("alpha") == pytest.approx(0.7)
    assert Refinement.objects.get(refinement_id=ref).status == RefinementStatus.APPLIED
    assert ok(transport(rev, rollback_req(ref)))["rolled_back"] is True
    assert weight("alpha") == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"lock_learnings": True, "review_notes": "frozen for the audit"}, "lock_learnings"),
        ({"learnings_access": "read"}, "learnings_access 'read'"),
    ],
    ids=["locked", "read-only"],
)
def test_a_rollback_into_a_step_that_may_not_learn_is_refused_saying_why(
    transport: Send, agent: Actor, rev: Actor, change: dict[str, Any], why: str
) -> None:
    path = "learnings/s1/SKILL.md"
    StepFactory.create(step_id="s1")
    ref = ok(transport(agent, apply_req(file_proposal(path, None, "# s1\n"))))["refinement_id"]
    Step.objects.filter(step_id="s1").update(**change)

    for actor in (agent, rev):
        body = refused(transport(actor, rollback_req(ref)), 403, "forbidden")
        assert why in body["message"], body["message"]

    assert value_at(Target.SKILL_FILE, path) == "# s1\n"
    assert Refinement.objects.get(refinement_id=ref).status == RefinementStatus.APPLIED
    assert not Refinement.objects.filter(rollback_of__refinement_id=ref).exists()


def test_rolling_back_an_adapt_of_a_thousand_weights_takes_a_bounded_number_of_queries(
    agent: Actor,
) -> None:
    principal = principal_for_token(agent.token)
    assert principal is not None
    plan = Plan.objects.create(
        project_id=default_pk(),
        plan_id="plan-bulk",
        origin="adapt",
        requested_by=principal.key,
        created=0.0,
    )
    steps = [WeightStep(f"c{i:04d}", 0.5, 0.55, "bulk") for i in range(1000)]
    with transaction.atomic():
        refinement = weights_apply(principal, plan, steps)

    with CaptureQueriesContext(connection) as queries:
        outcome = refinement_rollback(principal=principal, refinement_id=refinement.refinement_id)

    assert outcome.rolled_back is True, outcome
    assert len(queries) <= 40, len(queries)
    weights = store.routing_weights(default_pk())
    assert len(weights) == 1000
    assert set(weights.values()) == {0.5}
