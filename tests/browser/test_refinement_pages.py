"""Reviewers decide on plans in headless Chromium: every decision asks first, a button this
person may not use is disabled with its reason, and an annotator gets the 403 page on every
reviewer action. Screenshots at 1280 and 390 px: var/screenshots/refinement-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from learnportal.demo import DEMO_AGENT
from refinement.models import Plan, Proposal, Refinement
from refinement.paths import Target
from refinement.planner import plan_create
from refinement.proposals import ProposalInput
from tests.browser.helpers import log_in, screenshot
from tests.factories import PlanFactory, StoreValueFactory

if TYPE_CHECKING:
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": (1280, 800), "phone": (390, 844)}


def _demo_plan() -> Plan:
    return Plan.objects.get(requested_by="token:demo-agent")


def _fits(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def _shoot(page: Page, name: str) -> None:
    """A screenshot at both widths; the page never scrolls sideways at either."""
    for label, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        assert _fits(page), f"{name} scrolls sideways at {width} px"
        screenshot(page, f"refinement-{name}-{label}")
    page.set_viewport_size({"width": 1280, "height": 800})


def test_a_reviewer_approves_with_confirmation_then_applies_and_rolls_back(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    plan = _demo_plan()
    skill = plan.proposals.filter(target="skill_file").order_by("id").first()
    assert skill is not None
    log_in(page, live_server.url, "reviewer", "/plans/")
    _shoot(page, "plans")
    page.select_option("#plan-status", "ready")
    page.click("form.filters button")
    page.wait_for_url("**/plans/?status=ready")
    page.click(f"a[href='/plans/{plan.plan_id}/']")
    page.wait_for_selector(".proposal")
    _shoot(page, "plan")

    card = page.locator(f"article#{skill.proposal_id}")
    expect(card.locator("table.sbs")).to_be_visible()
    card.locator("button.approve").focus()  # keyboard: the button takes focus, Enter opens it
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm")
    _shoot(page, "confirm-approve")
    assert Proposal.objects.get(pk=skill.pk).status == "pending"
    page.fill("#decision-note", "Says what the reviewers keep saying")
    page.click("#confirm button.approve")
    expect(page.locator(".message-success")).to_contain_text(f"Approved {skill.proposal_id}")
    card = page.locator(f"article#{skill.proposal_id}")
    expect(card.locator(".proposal-head .status")).to_have_text("approved")

    card.locator("button.apply").click()
    page.wait_for_selector("#confirm")
    page.click("#confirm button.apply")
    expect(page.locator(".message-success")).to_contain_text(f"Applied {skill.proposal_id}")
    assert Proposal.objects.get(pk=skill.pk).status == "applied"

    card = page.locator(f"article#{skill.proposal_id}")
    card.locator("button.rollback").click()
    page.wait_for_selector("#confirm")
    _shoot(page, "confirm-rollback")
    page.click("#confirm button.rollback")
    expect(page.locator(".message-success")).to_contain_text("Rolled back")
    refinement = Refinement.objects.get(proposal=skill)
    assert refinement.status == "rolled_back"
    undo = Refinement.objects.get(rollback_of=refinement).refinement_id
    expect(page.locator(f"#{refinement.refinement_id} .link-back")).to_contain_text(undo)

    page.goto(f"{live_server.url}/history/")
    page.wait_for_selector("#history-list")
    expect(page.locator("#history-list .entry").first).to_contain_text(
        f"rolls back {refinement.refinement_id}"
    )
    _shoot(page, "history")
    page.fill("#history-path", "learnings/")
    page.select_option("#history-kind", "apply")
    page.click("form.filters button")
    page.wait_for_selector("#history-list .entry")
    assert page.locator("#history-list .entry .kind-badge").all_inner_texts() == ["APPLY"]
    _shoot(page, "history-filtered")


def test_an_edited_skill_file_is_side_by_side_and_fits_a_phone(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    path = "learnings/_global/SKILL.md"
    old = "# Skill\n\nRead the references before answering.\nKeep answers short.\n"
    new = old.replace("Keep answers short.", "Keep answers short, and cite the reference used.")
    StoreValueFactory.create(path=path, value=old)
    edit = ProposalInput(
        target=Target.SKILL_FILE, op="update", path=path, old_value=old, new_value=new
    )
    plan = PlanFactory.create(by=DEMO_AGENT, proposals=[edit], summary="cite references")
    log_in(page, live_server.url, "reviewer", f"/plans/{plan.plan_id}/")
    expect(page.locator("table.sbs td.added")).to_contain_text("cite the reference used")
    _shoot(page, "plan-skill-edit")


def test_disabled_buttons_say_why_and_the_server_refuses_anyway(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    own = plan_create(
        principal=principal_for_user(User.objects.get(username="reviewer")),
        component_name="code_review",
        scope="local",
    )[0]
    proposal = own.proposals.order_by("id").first()
    assert proposal is not None
    log_in(page, live_server.url, "reviewer", f"/plans/{own.plan_id}/")
    expect(page.locator("#four-eyes")).to_contain_text("another reviewer must")
    card = page.locator(f"article#{proposal.proposal_id}")
    approve = card.locator("button.approve")
    expect(approve).to_be_disabled()
    why = f"You requested {own.plan_id}; another reviewer must approve it."
    described = approve.get_attribute("aria-describedby")
    expect(page.locator(f"#{described}")).to_have_text(why)
    expect(card.locator("button.apply")).to_be_disabled()
    expect(card.locator("button.reject")).to_be_enabled()
    _shoot(page, "plan-own")

    # A POST that arrives anyway (an old tab, a script) is refused with the same reason.
    page.goto(f"{live_server.url}/plans/{own.plan_id}/proposals/{proposal.proposal_id}/approve/")
    expect(page.locator("#confirm button.approve")).to_be_disabled()
    response = page.evaluate(
        """async (url) => {
          const token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
          const body = new URLSearchParams({csrfmiddlewaretoken: token, note: ""});
          const r = await fetch(url, {method: "POST", body});
          return [r.status, await r.text()];
        }""",
        f"/plans/{own.plan_id}/proposals/{proposal.proposal_id}/approve/",
    )
    assert response[0] == 403 and why in response[1]
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"


def test_an_annotator_gets_the_403_page_on_every_reviewer_action(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    plan = _demo_plan()
    proposal = plan.proposals.order_by("id").first()
    assert proposal is not None
    base = f"/plans/{plan.plan_id}/proposals/{proposal.proposal_id}"
    urls = ["/plans/", f"/plans/{plan.plan_id}/", "/history/"]
    urls += [f"{base}/{decision}/" for decision in ("approve", "reject", "apply")]
    urls.append(f"/plans/{plan.plan_id}/refinements/ref-any/rollback/")
    log_in(page, live_server.url, "annotator")
    for url in urls:
        response = page.goto(f"{live_server.url}{url}")
        assert response is not None and response.status == 403, url
        expect(page.locator("h1")).to_have_text("Not for your role")
    _shoot(page, "forbidden")
    page.goto(f"{live_server.url}/")
    for url in urls[3:]:
        status = page.evaluate(
            """async (url) => {
              const token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
              const body = new URLSearchParams({csrfmiddlewaretoken: token, reason: "no"});
              const r = await fetch(url, {method: "POST", body});
              return [r.status, (await r.text()).includes("Not for your role")];
            }""",
            url,
        )
        assert status == [403, True], url
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"
