"""A reviewer changes a weight through a plan and watches it on the components pages, in
headless Chromium, at 1280 and 390 px. Screenshots: var/screenshots/components-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from refinement.models import Plan
from refinement.store import routing_weights
from tests.browser.helpers import log_in, screenshot
from tests.harness import default_pk

if TYPE_CHECKING:
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDE, NARROW = 1280, 390


def _no_sideways_scroll_in_main(page: Page) -> None:
    """Nothing the page's content draws is wider than the window: tables scroll in their card."""
    overflow = page.evaluate(
        """() => [...document.querySelectorAll("main .card")]
             .map(card => card.getBoundingClientRect().right)
             .filter(right => right > window.innerWidth + 1).length"""
    )
    assert overflow == 0
    assert page.evaluate("document.querySelector('main').scrollWidth <= window.innerWidth")


def _weight_in_list(page: Page, component: str) -> str:
    row = page.locator("tr", has=page.locator(f"th.component-name a:text-is('{component}')"))
    return row.locator("td").first.inner_text().split()[0]


def _shots(page: Page, name: str) -> None:
    for width in (WIDE, NARROW):
        page.set_viewport_size({"width": width, "height": 900})
        _no_sideways_scroll_in_main(page)
        screenshot(page, f"{name}-{width}")
    page.set_viewport_size({"width": WIDE, "height": 900})


def test_a_reviewer_applies_a_weight_sees_it_on_the_components_pages_and_rolls_it_back(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    plan = Plan.objects.get(requested_by="token:demo-agent")
    proposal = plan.proposals.filter(target="router_weight").order_by("id").first()
    assert proposal is not None
    component = proposal.path.removeprefix("router.weights.")
    log_in(page, live_server.url, "reviewer", "/components/")
    assert _weight_in_list(page, component) == "0.500"
    _shots(page, "components")

    # By keyboard: the weight column's header sorts the table, on the server.
    page.locator("th a[href^='?sort=weight']").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/components/?sort=weight&order=desc")
    expect(page.locator("th[aria-sort=descending]")).to_contain_text("Routing weight")

    page.goto(f"{live_server.url}/plans/{plan.plan_id}/")
    page.locator(f"article#{proposal.proposal_id} button.approve").click()
    page.wait_for_selector("#confirm")
    page.fill("#decision-note", "Send it more traffic")
    page.click("#confirm button.approve")
    page.wait_for_selector(".message-success")
    page.locator(f"article#{proposal.proposal_id} button.apply").click()
    page.wait_for_selector("#confirm")
    page.click("#confirm button.apply")
    page.wait_for_selector(".message-success")
    applied = routing_weights(default_pk())[component]
    assert applied == proposal.new_value

    page.click("nav a[href='/components/']")
    assert _weight_in_list(page, component) == f"{applied:.3f}"
    page.click(f"th.component-name a:text-is('{component}')")
    chart = page.locator("svg#weight-chart, svg[aria-labelledby^='weight-chart']")
    expect(chart.locator("title")).to_have_text(
        f"Routing weight of {component} over time, now {applied:.3f}"
    )
    expect(page.locator(".current-weight")).to_have_text(f"{applied:.3f}")
    page.locator("#weight-heading ~ details summary").click()
    expect(page.locator("#weight-numbers .weight-after").first).to_have_text(f"{applied:.3f}")
    _shots(page, "component")

    page.click(f"a[href='/plans/{plan.plan_id}/']")
    page.locator(f"article#{proposal.proposal_id} button.rollback").click()
    page.wait_for_selector("#confirm")
    page.click("#confirm button.rollback")
    page.wait_for_selector(".message-success")
    assert routing_weights(default_pk())[component] == proposal.old_value

    page.goto(f"{live_server.url}/components/")
    assert _weight_in_list(page, component) == f"{proposal.old_value:.3f}"
    page.click(f"th.component-name a:text-is('{component}')")
    expect(chart.locator("title")).to_have_text(
        f"Routing weight of {component} over time, now {proposal.old_value:.3f}"
    )
    page.locator("#weight-heading ~ details summary").click()
    rows = page.locator("#weight-numbers tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("(rollback)")
    expect(page.locator(".refinement-list li").first).to_contain_text("rollback")
    _shots(page, "component-rolled-back")


def test_the_components_list_shows_peoples_average_and_switches_source_by_its_links(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, live_server.url, "reviewer", "/components/")
    current = page.locator(".source-filter [aria-current=true]")
    expect(current).to_have_text("People")
    expect(page.locator("th[scope=col]", has_text="Avg score")).to_contain_text("(people)")
    _shots(page, "components-source-human")

    page.locator(".source-filter a", has_text="Agents' own").click()
    page.wait_for_url(f"{live_server.url}/components/?source=self")
    expect(current).to_have_text("Agents' own")
    expect(page.locator("th[scope=col]", has_text="Avg score")).to_contain_text("(agents' own)")
    _shots(page, "components-source-self")
