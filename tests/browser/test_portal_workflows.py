"""Annotators rate and reviewers decide, in headless Chromium. Screenshots: var/screenshots/."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from feedback.models import Feedback, Turn
from refinement.models import Plan, Proposal
from tests.browser.helpers import log_in, screenshot

if TYPE_CHECKING:
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SELECT_IN_RESPONSE = """([start, end]) => {
  const text = document.getElementById("response-text").firstChild;
  const range = document.createRange();
  range.setStart(text, start);
  range.setEnd(text, end);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  document.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
}"""


def test_an_annotator_rates_a_turn_with_a_correction_span_sees_the_reveal_and_takes_the_next(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, live_server.url, "annotator", "/turns/")
    screenshot(page, "turns")
    assert page.locator("a[href='/plans/']").count() == 0  # not a reviewer's page

    page.locator(".turn:not(.is-rated) a.button").first.click()
    page.wait_for_load_state("domcontentloaded")  # rate.js (deferred) listens from then on
    turn = Turn.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert page.locator("#response-text").inner_text() == turn.response

    page.check("input[value=corrective]", force=True)
    page.locator("input[name=score]").fill("-0.6")
    expect(page.locator("#score-value")).to_have_text("-0.6")  # rate.js updates it on input
    page.click("#rating-form button[type=submit]")
    error = page.locator("[data-field=correction]")
    expect(error).to_have_text("corrective feedback must include a correction")
    screenshot(page, "rate-error")

    page.evaluate(SELECT_IN_RESPONSE, [0, 4])
    assert page.locator("input[name=span_start]").input_value() == "0"
    assert page.locator("input[name=span_end]").input_value() == "4"
    assert page.locator("#response-text mark").inner_text() == turn.response[:4]
    page.fill("textarea[name=correction]", "Say where the figure comes from.")
    page.fill("textarea[name=comment]", "Unsourced number")
    screenshot(page, "rate")
    page.click("#rating-form button[type=submit]")

    page.wait_for_selector(".message-success")
    assert f"Rated {turn.correlation_id}" in page.locator(".message-success").inner_text()
    # The reveal of the turn just rated: its ratings, no form; the next is the queue's lease.
    assert page.url == f"{live_server.url}/turns/{turn.pk}/rated/"
    expect(page.locator(".ratings")).to_contain_text("Unsourced number")
    assert page.locator("#rating-form").count() == 0
    screenshot(page, "rate-reveal")
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing off-screen
    expect(page.locator(".next-turn")).to_be_in_viewport()
    screenshot(page, "rate-reveal-390")
    page.set_viewport_size({"width": 1280, "height": 800})
    feedback = Feedback.objects.get(correlation_id=turn.correlation_id)
    assert (feedback.source, feedback.annotator_id) == ("human", "annotator")
    assert (feedback.span_start, feedback.span_end, feedback.score) == (0, 4, -0.6)

    page.click(".next-turn")
    page.wait_for_url(f"{live_server.url}/queue/")
    following = Turn.objects.get(correlation_id=page.locator(".turn-facts .mono").inner_text())
    assert following != turn
    assert following.leases.get().username == "annotator"  # a turn they hold
    screenshot(page, "rate-next")

    page.goto(f"{live_server.url}/plans/")
    assert page.locator("h1").inner_text() == "Not for your role"
    screenshot(page, "forbidden")


def test_a_reviewer_approves_and_applies_a_proposal_then_reads_the_history(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    plan = Plan.objects.get(requested_by="token:demo-agent")
    weight = plan.proposals.filter(target="router_weight").order_by("id").first()
    assert weight is not None
    log_in(page, live_server.url, "reviewer", "/plans/")
    screenshot(page, "plans")
    page.click(f"a[href='/plans/{plan.plan_id}/']")
    page.wait_for_selector(".proposal")
    screenshot(page, "plan")

    card = page.locator(f"article#{weight.proposal_id}")
    card.locator("button.approve").click()  # a confirmation first, with the note
    page.wait_for_selector("#confirm")
    page.fill("#decision-note", "Traffic follows the better component")
    page.click("#confirm button.approve")
    page.wait_for_selector(".message-success")
    card = page.locator(f"article#{weight.proposal_id}")
    assert card.locator(".proposal-head .status").inner_text().lower() == "approved"
    card.locator("button.apply").click()
    page.wait_for_selector("#confirm")
    assert Proposal.objects.get(pk=weight.pk).status == "approved"  # not before it is confirmed
    page.click("#confirm button.apply")
    page.wait_for_selector(".message-success")
    card = page.locator(f"article#{weight.proposal_id}")
    assert card.locator(".proposal-head .status").inner_text().lower() == "applied"
    assert card.locator("button.rollback").is_visible()
    assert Proposal.objects.get(pk=weight.pk).status == "applied"
    screenshot(page, "plan-applied")

    page.click("nav a[href='/history/']")
    page.wait_for_selector("#history-list")
    assert page.locator("#history-list .entry").first.locator(".kind-badge").inner_text() == (
        "APPLY"
    )
    screenshot(page, "history")
