"""A plan's open proposals approved or applied together, with one confirmation, each by the same
service as one by one (refinement.plan_decisions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refinement.models import Plan, Proposal

if TYPE_CHECKING:
    from django.test import Client
    from pytest_django import Settings

pytestmark = pytest.mark.django_db


def _demo_plan() -> Plan:
    return Plan.objects.get(requested_by="token:demo-agent")


def _open(plan: Plan) -> list[Proposal]:
    return list(plan.proposals.filter(status="pending").order_by("id"))


def _all_url(plan: Plan, decision: str) -> str:
    return f"/plans/{plan.plan_id}/all/{decision}/"


def test_the_plan_page_offers_to_apply_every_open_proposal_it_shows(reviewer: Client) -> None:
    plan = _demo_plan()
    shown = _open(plan)
    page = reviewer.get(f"/plans/{plan.plan_id}/").content.decode()
    assert f'<form method="get" action="{_all_url(plan, "apply")}" class="action">' in page
    assert f"Apply all {len(shown)} open…" in page and f"Approve all {len(shown)} open…" in page
    for proposal in shown:
        assert f'<input type="hidden" name="proposal" value="{proposal.proposal_id}">' in page


def test_apply_all_asks_once_then_applies_each_and_says_so_per_proposal(reviewer: Client) -> None:
    plan = _demo_plan()
    shown = [p.proposal_id for p in _open(plan)]
    confirm = reviewer.get(_all_url(plan, "apply"), {"proposal": shown})
    body = confirm.content.decode()
    assert confirm.status_code == 200
    assert f"Apply {len(shown)} proposals of this plan?" in body
    assert f"Yes, apply {len(shown)} proposals" in body
    assert set(Proposal.objects.filter(plan=plan).values_list("status", flat=True)) == {"pending"}

    response = reviewer.post(_all_url(plan, "apply"), {"proposal": shown})

    assert response.status_code == 302 and response["Location"] == f"/plans/{plan.plan_id}/"
    statuses = dict(Proposal.objects.filter(plan=plan).values_list("proposal_id", "status"))
    assert all(statuses[p] == "applied" for p in shown)
    page = reviewer.get(response["Location"]).content.decode()
    assert f"{len(shown)} of {len(shown)}: " in page
    assert all(f"Applied {p} as ref-" in page for p in shown)
    assert "Apply all" not in page  # nothing open is left


def test_a_shown_proposal_decided_meanwhile_refuses_the_request_naming_it(
    reviewer: Client, second_reviewer: Client
) -> None:
    plan = _demo_plan()
    first, *rest = _open(plan)
    reviewer.post(f"/plans/{plan.plan_id}/proposals/{first.proposal_id}/reject/", {"reason": "no"})
    shown = [first.proposal_id, *(p.proposal_id for p in rest)]
    # The page showed `first` open; another reviewer rejected it meanwhile: its id is no longer
    # an open proposal, so the whole request is refused and nothing is applied.
    refused = second_reviewer.post(_all_url(plan, "apply"), {"proposal": shown})
    assert refused.status_code == 400
    assert f"{first.proposal_id} is no open proposal of this plan" in refused.content.decode()
    assert 'data-field="proposal"' in refused.content.decode()
    assert not Proposal.objects.filter(plan=plan, status="applied").exists()


def test_per_proposal_refusals_are_shown_beside_what_was_done(
    reviewer: Client, settings: Settings
) -> None:
    plan = _demo_plan()
    shown = _open(plan)
    high = [p for p in shown if p.risk_level == "high"]
    assert high, "the demo plan has a high-risk proposal"
    settings.LEARNPORTAL_REVIEWER_MAX_RISK = "medium"
    body = reviewer.get(_all_url(plan, "apply")).content.decode()
    assert "✗ will be refused: Its risk is high" in body
    assert f"{len(shown) - len(high)} of {len(shown)} may be applied now." in body

    response = reviewer.post(_all_url(plan, "apply"), {"proposal": [p.proposal_id for p in shown]})

    page = reviewer.get(response["Location"]).content.decode()
    for proposal in high:
        assert Proposal.objects.get(pk=proposal.pk).status == "pending"
        assert f"Not applied, {proposal.proposal_id}: Its risk is high" in page
    assert Proposal.objects.filter(plan=plan, status="applied").count() == len(shown) - len(high)


def test_approve_all_approves_each_open_proposal(second_reviewer: Client) -> None:
    plan = _demo_plan()
    shown = [p.proposal_id for p in _open(plan)]
    second_reviewer.post(_all_url(plan, "approve"), {"proposal": shown})
    assert set(Proposal.objects.filter(plan=plan).values_list("status", flat=True)) == {"approved"}


def test_a_post_that_names_no_proposal_says_what_to_do_and_changes_nothing(
    reviewer: Client,
) -> None:
    plan = _demo_plan()
    response = reviewer.post(_all_url(plan, "apply"), {})
    assert response.status_code == 400
    body = response.content.decode()
    assert "No proposal was chosen. Open the plan&#x27;s page again" in body
    assert "Field required" not in body and "This field is required" not in body
    assert not Proposal.objects.filter(plan=plan, status="applied").exists()


def test_only_approve_and_apply_are_decided_for_a_whole_plan(reviewer: Client) -> None:
    plan = _demo_plan()
    assert reviewer.get(_all_url(plan, "reject")).status_code == 404
    assert reviewer.get("/plans/plan-nope/all/apply/").status_code == 404
    assert reviewer.put(_all_url(plan, "apply")).status_code == 405


def test_annotators_may_not_decide_a_whole_plan(annotator: Client) -> None:
    plan = _demo_plan()
    response = annotator.post(_all_url(plan, "apply"), {"proposal": ["x"]})
    assert response.status_code == 403
    assert not Proposal.objects.filter(plan=plan, status="applied").exists()
