"""learn/refinement/apply: auto-apply within the risk limit, a queue above it, four eyes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.conf import settings

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from learnportal_protocol.errors import ErrorCode, LearnError
from refinement.models import Proposal, ProposalStatus, Refinement, RefinementStatus
from refinement.paths import weight_path
from refinement.services.approval import proposal_approve, proposal_reject
from tests.builders import apply_req, plan_req, review_req, weight_proposal
from tests.harness import Actor, Send, http_send, ok, refused
from tests.refinement.helpers import two_arms, weight

if TYPE_CHECKING:
    from pytest_django import Settings

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def test_a_low_risk_weight_applied_by_an_agent(transport: Send, agent: Actor) -> None:
    body = ok(transport(agent, apply_req(weight_proposal("alpha", 0.5, 0.55))))
    assert body["type"] == "learn/refinement/apply/resp"
    assert body["applied_edits"] == 1
    assert body["failed_edits"] == 0
    assert body["rollback_available"] is True
    assert body["error"] == ""
    assert body["refinement_id"]
    assert weight("alpha") == pytest.approx(0.55)
    refinement = Refinement.objects.get(refinement_id=body["refinement_id"])
    assert refinement.status == RefinementStatus.APPLIED
    assert refinement.edits[0]["before"] == 0.5
    assert refinement.edits[0]["after"] == 0.55


def test_a_high_risk_apply_by_an_agent_is_queued_then_a_reviewer_applies_it(
    transport: Send, agent: Actor, rev: Actor
) -> None:
    proposal = weight_proposal("alpha", 0.5, 0.95)
    queued = ok(transport(agent, apply_req(proposal)))
    assert queued["applied_edits"] == 0
    assert queued["rollback_available"] is False
    assert "approval" in queued["error"]
    assert queued["refinement_id"]
    assert weight("alpha") is None
    refinement = Refinement.objects.get(refinement_id=queued["refinement_id"])
    assert refinement.status == RefinementStatus.QUEUED

    # Asking again does not queue it twice.
    again = ok(transport(agent, apply_req(proposal)))
    assert again["refinement_id"] == queued["refinement_id"]

    applied = ok(transport(rev, apply_req(proposal)))
    assert applied["applied_edits"] == 1, applied
    assert applied["refinement_id"] == queued["refinement_id"]
    assert weight("alpha") == pytest.approx(0.95)
    refinement.refresh_from_db()
    assert refinement.status == RefinementStatus.APPLIED
    assert refinement.actor == "user:rev"


def test_medium_risk_is_queued_at_low_and_applied_at_medium(
    agent: Actor, settings: Settings
) -> None:
    body = ok(http_send(agent, apply_req(weight_proposal("alpha", 0.5, 0.7))))
    assert body["applied_edits"] == 0
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "medium"
    body = ok(http_send(agent, apply_req(weight_proposal("beta", 0.5, 0.7))))
    assert body["applied_edits"] == 1
    assert weight("alpha") is None and weight("beta") == pytest.approx(0.7)


def test_at_risk_none_even_a_low_risk_apply_waits(agent: Actor, settings: Settings) -> None:
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "none"
    body = ok(http_send(agent, apply_req(weight_proposal("alpha", 0.5, 0.55))))
    assert body["applied_edits"] == 0
    assert "approval" in body["error"]
    assert weight("alpha") is None


def test_a_step_config_change_always_waits_for_a_person(agent: Actor, settings: Settings) -> None:
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "high"
    proposal = {
        "target": "step_config",
        "op": "update",
        "path": "steps.s1.lock_learnings",
        "old_value": False,
        "new_value": True,
    }
    body = ok(http_send(agent, apply_req(proposal)))
    assert body["applied_edits"] == 0
    assert "approval" in body["error"]


@pytest.mark.parametrize("who", ["agent", "rev"])
def test_a_stale_old_value_is_a_conflict(
    transport: Send, agent: Actor, rev: Actor, who: str
) -> None:
    actor = {"agent": agent, "rev": rev}[who]
    stale = weight_proposal("alpha", 0.4, 0.45)
    if who == "rev":
        # The agent files it (a review registers it), so that four eyes do not stand in the way.
        ok(transport(agent, review_req(stale)))
    body = refused(transport(actor, apply_req(stale)), 409, "conflict")
    assert "expected" in body["message"] and "found" in body["message"]
    assert "expected 0.4, found 0.5" in body["message"]
    assert weight("alpha") is None
    assert not Refinement.objects.exists()


def test_a_reviewer_never_applies_a_plan_they_requested(
    transport: Send, agent: Actor, rev: Actor, rev2: Actor, weighted: None
) -> None:
    two_arms(agent)
    plan = ok(transport(rev, plan_req()))
    proposal = next(p for p in plan["proposals"] if p["path"] == weight_path("alpha"))
    body = refused(transport(rev, apply_req(proposal)), 403, "forbidden")
    assert plan["plan_id"] in body["message"]
    assert weight("alpha") == 0.5
    # Without its ids the same edit is still that plan's proposal... or a new one of rev's own:
    # either way rev may not apply it by himself.
    bare = {k: proposal[k] for k in ("target", "op", "path", "old_value", "new_value")}
    refused(transport(rev, apply_req(bare)), 403, "forbidden")
    applied = ok(transport(rev2, apply_req(proposal)))
    assert applied["applied_edits"] == 1
    assert weight("alpha") == pytest.approx(proposal["new_value"])


def test_a_reviewer_may_not_approve_their_own_plan(
    agent: Actor, rev: Actor, rev2: Actor, weighted: None
) -> None:
    two_arms(agent)
    plan = ok(http_send(rev, plan_req()))
    proposal_id = plan["proposals"][0]["proposal_id"]
    principal = principal_for_user(User.objects.get(username="rev"))
    with pytest.raises(LearnError) as refusal:
        proposal_approve(principal=principal, proposal_id=proposal_id)
    assert refusal.value.code == ErrorCode.FORBIDDEN
    other = principal_for_user(User.objects.get(username="rev2"))
    review = proposal_approve(principal=other, proposal_id=proposal_id)
    assert review.approved is True


def test_an_approval_counts_for_the_content_approved_only(
    transport: Send, agent: Actor, rev: Actor
) -> None:
    proposal = weight_proposal("alpha", 0.5, 0.95, proposal_id="prop-approve-1")
    queued = ok(transport(agent, apply_req(proposal)))
    assert queued["applied_edits"] == 0
    proposal_approve(
        principal=principal_for_user(User.objects.get(username="rev")),
        proposal_id="prop-approve-1",
    )
    changed = ok(transport(agent, apply_req({**proposal, "new_value": 0.9})))
    assert changed["applied_edits"] == 0
    assert "approval" in changed["error"]
    assert weight("alpha") is None
    record = Proposal.objects.get(proposal_id="prop-approve-1")
    assert record.new_value == 0.9
    assert record.status == ProposalStatus.QUEUED


def test_an_approved_proposal_applies_for_the_agent(
    transport: Send, agent: Actor, rev: Actor
) -> None:
    proposal = weight_proposal("alpha", 0.5, 0.95, proposal_id="prop-approve-2")
    queued = ok(transport(agent, apply_req(proposal)))
    proposal_approve(
        principal=principal_for_user(User.objects.get(username="rev")),
        proposal_id="prop-approve-2",
    )
    applied = ok(transport(agent, apply_req(proposal)))
    assert applied["applied_edits"] == 1
    assert applied["refinement_id"] == queued["refinement_id"]
    assert weight("alpha") == pytest.approx(0.95)


def test_an_annotator_may_not_apply(transport: Send, ann: Actor) -> None:
    refused(transport(ann, apply_req(weight_proposal("alpha", 0.5, 0.55))), 403, "forbidden")
    assert weight("alpha") is None


def test_a_write_into_a_read_step_is_refused_even_for_a_reviewer(
    transport: Send, agent: Actor, rev: Actor
) -> None:
    proposal = {
        "target": "skill_file",
        "op": "create",
        "path": "learnings/s1/SKILL.md",
        "old_value": None,
        "new_value": "# s1\n",
    }
    refused(transport(agent, apply_req(proposal)), 403, "forbidden")
    ok(transport(agent, review_req(proposal)))  # filed by the agent, so four eyes hold
    body = refused(transport(rev, apply_req(proposal)), 403, "forbidden")
    assert "learnings_access" in body["message"]


def test_a_reviewer_applies_a_proposal_of_no_plan_with_a_personal_token(rev: Actor) -> None:
    body = ok(http_send(rev, apply_req(weight_proposal("alpha", 0.5, 0.95))))
    assert body["applied_edits"] == 1
    assert weight("alpha") == pytest.approx(0.95)


def test_a_reviewer_rejects_a_queued_proposal(agent: Actor, rev: Actor) -> None:
    proposal = weight_proposal("alpha", 0.5, 0.95, proposal_id="prop-reject-1")
    queued = ok(http_send(agent, apply_req(proposal)))
    proposal_reject(
        principal=principal_for_user(User.objects.get(username="rev")),
        proposal_id="prop-reject-1",
        reason="too far in one go",
    )
    refinement = Refinement.objects.get(refinement_id=queued["refinement_id"])
    assert refinement.status == RefinementStatus.REJECTED
    assert Proposal.objects.get(proposal_id="prop-reject-1").status == ProposalStatus.REJECTED
