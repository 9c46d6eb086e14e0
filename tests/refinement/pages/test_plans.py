from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client

from learnportal.accounts.models import User
from learnportal.accounts.principals import principal_for_user
from learnportal.demo import DEMO_AGENT
from refinement.adapt import adapt_run
from refinement.models import Plan, Proposal, Refinement
from refinement.paths import Target, weight_path
from refinement.planner import plan_create
from refinement.proposals import ProposalInput
from refinement.services import plan_file, proposal_apply, proposal_wire, refinement_rollback
from refinement.store import routing_weights
from tests.refinement.helpers import plan_of

if TYPE_CHECKING:
    from django.test import Client
    from pytest_django import Settings

    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db


def _demo_plan() -> Plan:
    return Plan.objects.get(requested_by="token:demo-agent")


def _proposal(target: str, plan: Plan | None = None) -> Proposal:
    proposal = (plan or _demo_plan()).proposals.filter(target=target).order_by("id").first()
    assert proposal is not None
    return proposal


def _decide(client: Client, proposal: Proposal, decision: str, **data: str) -> ClientResponse:
    return client.post(
        f"/plans/{plan_of(proposal).plan_id}/proposals/{proposal.proposal_id}/{decision}/", data
    )


def test_annotators_get_the_403_page_for_plans(annotator: Client) -> None:
    proposal = _proposal("router_weight")
    assert annotator.get("/plans/").status_code == 403
    page = annotator.get(f"/plans/{plan_of(proposal).plan_id}/")
    assert page.status_code == 403
    assert "Not for your role" in page.content.decode()
    assert _decide(annotator, proposal, "approve").status_code == 403
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"


def test_the_nav_shows_only_the_pages_a_role_may_use(annotator: Client, reviewer: Client) -> None:
    annotator_nav = annotator.get("/").content.decode()
    assert 'href="/turns/"' in annotator_nav
    assert 'href="/plans/"' not in annotator_nav and 'href="/history/"' not in annotator_nav
    reviewer_nav = reviewer.get("/").content.decode()
    assert all(f'href="/{p}/"' in reviewer_nav for p in ("turns", "plans", "history"))


def test_plans_are_listed_newest_first_with_their_status(reviewer: Client) -> None:
    mine = plan_create(
        principal=principal_for_user(User.objects.get(username="reviewer")),
        component_name="",
        scope="local",
    )[0]
    page = reviewer.get("/plans/").content.decode()
    assert page.index(mine.plan_id) < page.index(_demo_plan().plan_id)
    assert 'class="status status-ready">ready' in page


def test_a_plan_shows_risk_badges_and_diffs(reviewer: Client) -> None:
    page = reviewer.get(f"/plans/{_demo_plan().plan_id}/").content.decode()
    assert 'class="risk risk-medium">medium risk' in page
    assert 'class="risk risk-low">low risk' in page
    assert '<span class="diff-head">+++ b/learnings/_global/references/code_review.md' in page
    assert '<span class="diff-add">+- **correctness**: Point out that add() subtracts.' in page
    weight = _proposal("router_weight")
    assert weight.new_value is not None and weight.old_value is not None
    delta = weight.new_value - weight.old_value
    assert f"{delta:.3f}" in page


def test_a_unknown_plan_is_not_found(reviewer: Client) -> None:
    assert reviewer.get("/plans/plan-nope/").status_code == 404


def test_approving_then_applying_changes_the_weight(reviewer: Client) -> None:
    proposal = _proposal("router_weight")
    response = _decide(reviewer, proposal, "approve", note="Looks right")
    assert response.status_code == 302
    assert Proposal.objects.get(pk=proposal.pk).status == "approved"
    assert "Looks right" in reviewer.get(response["Location"]).content.decode()
    _decide(reviewer, proposal, "apply")
    assert Proposal.objects.get(pk=proposal.pk).status == "applied"
    component = proposal.path.removeprefix("router.weights.")
    assert routing_weights()[component] == pytest.approx(proposal.new_value)
    page = reviewer.get(f"/plans/{plan_of(proposal).plan_id}/").content.decode()
    refinement = Refinement.objects.get(proposal=proposal)
    assert refinement.refinement_id in page and "Roll back" in page


def test_rolling_back_restores_the_old_value(reviewer: Client) -> None:
    proposal = _proposal("skill_file")
    _decide(reviewer, proposal, "apply")
    refinement = Refinement.objects.get(proposal=proposal)
    response = reviewer.post(
        f"/plans/{plan_of(proposal).plan_id}/refinements/{refinement.refinement_id}/rollback/"
    )
    assert response.status_code == 302
    assert Refinement.objects.get(pk=refinement.pk).status == "rolled_back"
    assert Proposal.objects.get(pk=proposal.pk).status == "rolled_back"
    page = reviewer.get(response["Location"]).content.decode()
    assert f"Rolled back {refinement.refinement_id}" in page
    again = reviewer.post(
        f"/plans/{plan_of(proposal).plan_id}/refinements/{refinement.refinement_id}/rollback/"
    )
    assert "rolled back already" in reviewer.get(again["Location"]).content.decode()


def test_rejecting_needs_a_reason_shown_next_to_the_field(reviewer: Client) -> None:
    proposal = _proposal("skill_file")
    response = _decide(reviewer, proposal, "reject", reason="  ")
    assert response.status_code == 400
    assert 'data-field="reason">Text may not be blank' in response.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"


def test_rejecting_with_a_reason_rejects(reviewer: Client) -> None:
    proposal = _proposal("skill_file")
    _decide(reviewer, proposal, "reject", reason="Too vague")
    assert Proposal.objects.get(pk=proposal.pk).status == "rejected"
    page = reviewer.get(f"/plans/{plan_of(proposal).plan_id}/").content.decode()
    assert "“Too vague”" in page


def test_a_reviewer_cannot_approve_or_apply_their_own_plan(
    reviewer: Client, second_reviewer: Client
) -> None:
    plan = plan_create(
        principal=principal_for_user(User.objects.get(username="reviewer")),
        component_name="code_review",
        scope="local",
    )[0]
    proposal = _proposal("router_weight", plan)
    response = _decide(reviewer, proposal, "approve")
    page = reviewer.get(response["Location"]).content.decode()
    assert f"You requested {plan.plan_id}; another reviewer must approve it." in page
    _decide(reviewer, proposal, "apply")
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"
    _decide(second_reviewer, proposal, "approve")
    assert Proposal.objects.get(pk=proposal.pk).status == "approved"


def test_decisions_are_posts_only(reviewer: Client) -> None:
    proposal = _proposal("skill_file")
    assert (
        reviewer.get(
            f"/plans/{plan_of(proposal).plan_id}/proposals/{proposal.proposal_id}/approve/"
        ).status_code
        == 405
    )
    assert _decide(reviewer, proposal, "obliterate").status_code == 404


def _agent_applied_weight(settings: Settings, component: str, new: float) -> tuple[Plan, str]:
    """The demo agent files and applies a weight change of its own plan at a medium limit."""
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "medium"
    proposal = ProposalInput(
        target=Target.ROUTER_WEIGHT,
        op="update",
        path=weight_path(component),
        old_value=0.5,
        new_value=new,
    )
    plan, (record,) = plan_file(DEMO_AGENT, [proposal], origin="plan", summary="a probe")
    outcome = proposal_apply(principal=DEMO_AGENT, raw=proposal_wire(record))
    assert outcome.applied_edits == 1, outcome
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "low"
    return plan, outcome.refinement_id


def test_a_queued_rollback_shows_its_reason_and_a_reviewer_applies_it(
    reviewer: Client, settings: Settings
) -> None:
    plan, refinement_id = _agent_applied_weight(settings, "probe", 0.7)
    queued = refinement_rollback(principal=DEMO_AGENT, refinement_id=refinement_id)
    assert queued.rolled_back is False

    page = reviewer.get(f"/plans/{plan.plan_id}/").content.decode()

    assert f"Rollback <code>{queued.rollback_refinement_id}</code> queued" in page
    assert "awaits approval by a reviewer: its risk is medium" in page
    action = f'action="/plans/{plan.plan_id}/refinements/{refinement_id}/rollback/"'
    assert action in page and "Apply rollback" in page

    response = reviewer.post(f"/plans/{plan.plan_id}/refinements/{refinement_id}/rollback/")

    assert routing_weights()["probe"] == pytest.approx(0.5)
    assert Refinement.objects.get(refinement_id=queued.rollback_refinement_id).status == "applied"
    page = reviewer.get(response["Location"]).content.decode()
    assert f"Rolled back {refinement_id}" in page
    assert "Apply rollback" not in page


def test_an_adapt_plan_shows_its_one_refinement_with_a_rollback_button(reviewer: Client) -> None:
    outcome = adapt_run(principal=DEMO_AGENT, component_name="", strategy="epsilon_greedy")
    assert outcome.updated
    refinement = Refinement.objects.get(plan__plan_id=outcome.plan_id)

    page = reviewer.get(f"/plans/{outcome.plan_id}/").content.decode()

    assert refinement.refinement_id in page
    assert (
        f'action="/plans/{outcome.plan_id}/refinements/{refinement.refinement_id}/rollback/"'
        in page
    )
    reviewer.post(f"/plans/{outcome.plan_id}/refinements/{refinement.refinement_id}/rollback/")
    assert Refinement.objects.get(pk=refinement.pk).status == "rolled_back"


def test_a_queued_rollback_of_no_plan_waits_on_the_plans_page_for_a_reviewer(
    reviewer: Client, settings: Settings
) -> None:
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "medium"
    raw = {
        "target": "router_weight",
        "op": "update",
        "path": weight_path("lone"),
        "old_value": 0.5,
        "new_value": 0.7,
    }
    refinement_id = proposal_apply(principal=DEMO_AGENT, raw=raw).refinement_id
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "low"
    queued = refinement_rollback(principal=DEMO_AGENT, refinement_id=refinement_id)
    assert queued.rolled_back is False

    page = reviewer.get("/plans/").content.decode()

    assert "Rollbacks waiting for a reviewer" in page
    assert queued.rollback_refinement_id in page
    assert "awaits approval by a reviewer: its risk is medium" in page
    action = f"/plans/-/refinements/{refinement_id}/rollback/"
    assert f'action="{action}"' in page

    response = reviewer.post(action)

    assert response["Location"] == "/plans/"
    assert routing_weights()["lone"] == pytest.approx(0.5)
    page = reviewer.get("/plans/").content.decode()
    assert f"Rolled back {refinement_id}" in page
    assert "Rollbacks waiting for a reviewer" not in page
