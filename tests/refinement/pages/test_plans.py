from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from learnportal.demo import DEMO_AGENT
from refinement.adapt import adapt_run
from refinement.models import Plan, Proposal, Refinement, StoreValue
from refinement.paths import Target, weight_path
from refinement.planner import plan_create
from refinement.proposals import ProposalInput
from refinement.services.apply import proposal_apply
from refinement.services.plans import plan_file
from refinement.services.register import proposal_wire
from refinement.services.rollback import refinement_rollback
from refinement.store import routing_weights
from tests.factories import PlanFactory, ProposalFactory, StoreValueFactory
from tests.harness import default_pk
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


def _url(proposal: Proposal, decision: str) -> str:
    return f"/plans/{plan_of(proposal).plan_id}/proposals/{proposal.proposal_id}/{decision}/"


def _applied(client: Client, proposal: Proposal) -> Refinement:
    assert _decide(client, proposal, "apply").status_code == 302
    return Refinement.objects.get(proposal=proposal)


def test_annotators_get_the_403_page_on_every_reviewer_page_and_action(annotator: Client) -> None:
    proposal = _proposal("router_weight")
    plan_id = plan_of(proposal).plan_id
    refinement = adapt_run(principal=DEMO_AGENT, component_name="", strategy="epsilon_greedy")
    rollback = f"/plans/{refinement.plan_id}/refinements/"
    rollback += (
        f"{Refinement.objects.get(plan__plan_id=refinement.plan_id).refinement_id}/rollback/"
    )
    urls = ["/plans/", f"/plans/{plan_id}/", "/history/", rollback]
    urls += [_url(proposal, decision) for decision in ("approve", "reject", "apply")]
    for url in urls:
        for response in (annotator.get(url), annotator.post(url, {"reason": "no", "note": "x"})):
            assert response.status_code == 403, url
            assert "Not for your role" in response.content.decode(), url
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"
    assert Refinement.objects.get(plan__plan_id=refinement.plan_id).status == "applied"


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


def test_plans_show_requester_and_risk_badges_in_words(reviewer: Client) -> None:
    plan_create(
        principal=principal_for_user(User.objects.get(username="reviewer")),
        component_name="",
        scope="local",
    )
    page = reviewer.get("/plans/").content.decode()
    assert (
        '<span class="requester-kind">agent</span> <span class="requester-name">demo-agent' in page
    )
    assert '<span class="requester-name">reviewer</span> <b class="requester-you">you</b>' in page
    assert '<span class="risk risk-high">high risk</span>' in page  # the plan's highest


def test_plans_filter_by_status(reviewer: Client) -> None:
    demo = _demo_plan().plan_id
    done = PlanFactory.create(by=DEMO_AGENT, summary="nothing to do")
    assert done.status == "empty"
    empty = reviewer.get("/plans/", {"status": "empty"}).content.decode()
    ready = reviewer.get("/plans/", {"status": "ready"}).content.decode()
    assert done.plan_id in empty and demo not in empty
    assert demo in ready and done.plan_id not in ready
    assert '<option value="empty" selected>' in empty
    none_done = reviewer.get("/plans/", {"status": "done"}).content.decode()
    assert "No plan is done." in none_done and "Show every plan" in none_done
    # An unknown status is no filter, not an error.
    assert reviewer.get("/plans/", {"status": "<nope>"}).status_code == 200


def test_an_empty_portal_says_how_a_plan_arrives(reviewer: Client) -> None:
    Plan.objects.all().delete()
    page = reviewer.get("/plans/").content.decode()
    assert "No plan has been filed yet" in page and "learn/refinement/plan" in page


def test_a_plan_shows_risk_badges_and_diffs(reviewer: Client) -> None:
    page = reviewer.get(f"/plans/{_demo_plan().plan_id}/").content.decode()
    assert 'class="risk risk-medium">medium risk' in page
    assert 'class="risk risk-low">low risk' in page
    assert '<table class="sbs sbs-one">' in page  # a new learnings file: its one side
    assert '<td class="new added">- **correctness**: Point out that add() subtracts.' in page
    weight = _proposal("router_weight")
    assert weight.new_value is not None and weight.old_value is not None
    delta = weight.new_value - weight.old_value
    assert f"{delta:.3f}" in page
    assert f"Trust-region step {abs(delta):.3f}; a machine may move a weight by 0.100" in page


def _card(page: str, proposal: Proposal) -> str:
    """The part of a plan's page that is one proposal's card."""
    start = page.index(f'<article class="card proposal" id="{proposal.proposal_id}"')
    return page[start : page.index("</article>", start)]


def test_a_plan_shows_each_proposals_review_with_its_confidence(reviewer: Client) -> None:
    demo = reviewer.get(f"/plans/{_demo_plan().plan_id}/").content.decode()
    card = _card(demo, _proposal("router_weight"))
    assert "Risk <b>high</b> · confidence not adjusted" in card
    assert '<ul class="reasons"><li>moves the weight by 0.500 (over 0.3)</li></ul>' in card

    # The demo's components have their calls; one that nobody has called has thin evidence.
    newcomer = ProposalInput(
        target=Target.ROUTER_WEIGHT,
        op="update",
        path=weight_path("newcomer"),
        old_value=0.5,
        new_value=0.55,
    )
    plan, (thin,) = plan_file(DEMO_AGENT, [newcomer], origin="plan", summary="a newcomer")
    card = _card(reviewer.get(f"/plans/{plan.plan_id}/").content.decode(), thin)
    assert 'Risk <b>low</b> · <span class="flag flag-thin">confidence adjusted</span>' in card
    assert "<li>thin evidence for newcomer: 0 calls and 0 feedbacks; confidence lowered" in card


def test_a_stale_proposal_says_what_it_expected_and_what_it_found(reviewer: Client) -> None:
    proposal = _proposal("router_weight")
    StoreValue.objects.update_or_create(
        project_id=default_pk(), path=proposal.path, defaults={"value": 0.123}
    )
    page = reviewer.get(f"/plans/{plan_of(proposal).plan_id}/").content.decode()
    assert f"expected <code>{proposal.old_value!r}</code>, found <code>0.123</code>" in page
    why = (
        f'id="{proposal.proposal_id}-approve-why">The proposal is stale: {proposal.path}: expected'
    )
    assert why in page
    assert _decide(reviewer, proposal, "approve").status_code == 409


def test_buttons_open_a_confirmation_and_only_its_post_acts(reviewer: Client) -> None:
    proposal = _proposal("router_weight")
    page = reviewer.get(f"/plans/{plan_of(proposal).plan_id}/").content.decode()
    assert f'<form method="get" action="{_url(proposal, "apply")}" class="action">' in page
    confirm = reviewer.get(_url(proposal, "apply"))
    assert confirm.status_code == 200
    body = confirm.content.decode()
    assert "Apply this proposal?" in body and f"Yes, apply {proposal.proposal_id}" in body
    assert "<li>moves the weight by" in body  # the review, again, where one decides
    assert f'<form method="post" action="{_url(proposal, "apply")}"' in body
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"
    reject = reviewer.get(_url(proposal, "reject")).content.decode()
    assert '<label for="decision-reason">Reason (required)</label>' in reject
    assert 'id="decision-reason"' in reject


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
    assert routing_weights(default_pk())[component] == pytest.approx(proposal.new_value)
    page = reviewer.get(f"/plans/{plan_of(proposal).plan_id}/").content.decode()
    refinement = Refinement.objects.get(proposal=proposal)
    assert refinement.refinement_id in page and "Roll back" in page


def test_rolling_back_asks_first_then_restores_the_old_value(reviewer: Client) -> None:
    proposal = _proposal("skill_file")
    refinement = _applied(reviewer, proposal)
    url = f"/plans/{plan_of(proposal).plan_id}/refinements/{refinement.refinement_id}/rollback/"
    confirm = reviewer.get(url).content.decode()
    assert f"Roll back {refinement.refinement_id}?" in confirm and proposal.path in confirm
    assert Refinement.objects.get(pk=refinement.pk).status == "applied"
    response = reviewer.post(url)
    assert response.status_code == 302
    assert Refinement.objects.get(pk=refinement.pk).status == "rolled_back"
    assert Proposal.objects.get(pk=proposal.pk).status == "rolled_back"
    page = reviewer.get(response["Location"]).content.decode()
    assert f"Rolled back {refinement.refinement_id}" in page
    undo = Refinement.objects.get(rollback_of=refinement).refinement_id
    assert f'rolled back by <a href="#{undo}">{undo}</a>' in page
    assert f'rolls back <a href="#{refinement.refinement_id}">' in page
    again = reviewer.post(url)
    assert again.status_code == 409
    assert (
        f"{refinement.refinement_id} was rolled back already by {undo}." in again.content.decode()
    )


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
    page = reviewer.get(f"/plans/{plan.plan_id}/").content.decode()
    why = f"You requested {plan.plan_id}; another reviewer must approve it."
    assert "another reviewer must (four eyes)" in page
    for verb in ("approve", "apply"):
        described = f'disabled aria-describedby="{proposal.proposal_id}-{verb}-why"'
        assert described in page
        assert f'id="{proposal.proposal_id}-{verb}-why">{why}</small>' in page
    assert f'id="{proposal.proposal_id}-reject-why"' not in page  # one may withdraw one's own
    response = _decide(reviewer, proposal, "approve")
    assert response.status_code == 403 and why in response.content.decode()
    assert _decide(reviewer, proposal, "apply").status_code == 403
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"
    _decide(second_reviewer, proposal, "approve")
    assert Proposal.objects.get(pk=proposal.pk).status == "approved"


def test_a_reviewer_over_their_risk_limit_sees_why_and_is_refused(
    reviewer: Client, settings: Settings
) -> None:
    settings.LEARNPORTAL_REVIEWER_MAX_RISK = "low"
    proposal = _demo_plan().proposals.filter(risk_level="medium").first()
    assert proposal is not None
    page = reviewer.get(f"/plans/{plan_of(proposal).plan_id}/").content.decode()
    why = "Its risk is medium, above the &#x27;low&#x27; a reviewer may approve"
    assert why in page
    assert _decide(reviewer, proposal, "approve").status_code == 403
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"


def test_an_applied_proposal_has_no_decision_buttons_and_a_post_is_a_conflict(
    reviewer: Client,
) -> None:
    proposal = _proposal("skill_file")
    _applied(reviewer, proposal)
    page = reviewer.get(f"/plans/{plan_of(proposal).plan_id}/").content.decode()
    assert _url(proposal, "approve") not in page and "Roll back…" in page
    response = _decide(reviewer, proposal, "approve")
    assert response.status_code == 409
    assert f"Proposal {proposal.proposal_id} is applied already." in response.content.decode()


def test_decisions_are_gets_that_confirm_and_posts_that_act(reviewer: Client) -> None:
    proposal = _proposal("skill_file")
    assert reviewer.get(_url(proposal, "approve")).status_code == 200
    assert reviewer.put(_url(proposal, "approve")).status_code == 405
    assert _decide(reviewer, proposal, "obliterate").status_code == 404
    assert (
        reviewer.get(f"/plans/plan-nope/proposals/{proposal.proposal_id}/approve/").status_code
        == 404
    )


def _agent_applied_weight(settings: Settings, component: str, new: float) -> tuple[Plan, str]:
    """The demo agent files and applies a weight change of its own plan at a medium limit."""
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "medium"
    record = ProposalFactory.create(
        by=DEMO_AGENT, component=component, new_value=new, summary="a probe"
    )
    outcome = proposal_apply(principal=DEMO_AGENT, raw=proposal_wire(record))
    assert outcome.applied_edits == 1, outcome
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "low"
    return plan_of(record), outcome.refinement_id


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
    assert action in page and "Apply rollback…" in page
    confirm = reviewer.get(f"/plans/{plan.plan_id}/refinements/{refinement_id}/rollback/")
    assert f"Apply the queued rollback of {refinement_id}?" in confirm.content.decode()

    response = reviewer.post(f"/plans/{plan.plan_id}/refinements/{refinement_id}/rollback/")

    assert routing_weights(default_pk())["probe"] == pytest.approx(0.5)
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
    assert routing_weights(default_pk())["lone"] == pytest.approx(0.5)
    page = reviewer.get("/plans/").content.decode()
    assert f"Rolled back {refinement_id}" in page
    assert "Rollbacks waiting for a reviewer" not in page


def test_an_edited_learnings_file_is_shown_side_by_side(reviewer: Client) -> None:
    path = "learnings/_global/SKILL.md"
    StoreValueFactory.create(path=path, value="# Skill\nold advice\n")
    edit = ProposalInput(
        target=Target.SKILL_FILE,
        op="update",
        path=path,
        old_value="# Skill\nold advice\n",
        new_value="# Skill\nnew advice\n",
    )
    plan = PlanFactory.create(by=DEMO_AGENT, proposals=[edit], summary="a better skill")
    page = reviewer.get(f"/plans/{plan.plan_id}/").content.decode()
    assert '<table class="sbs">' in page
    assert (
        '<td class="old removed"><span class="visually-hidden">removed: </span>old advice' in page
    )
    assert '<td class="new added"><span class="visually-hidden">added: </span>new advice' in page
