"""The reviewers' pages and the small page fixes of issue 22 in headless Chromium: one header
height on every page, badges and rated rows at AA contrast with a cue besides colour, and a plan
applied whole with one confirmation. Screenshots at 1280 and 390 px:
var/screenshots/review-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from feedback.models import Turn
from refinement.models import Plan, Proposal
from tests.browser.helpers import log_in, screenshot
from tests.factories import FeedbackFactory

if TYPE_CHECKING:
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": (1280, 800), "phone": (390, 844)}

# The WCAG contrast of an element's text on the first opaque background behind it, with the
# opacity of every ancestor applied to the text (as a reader sees it).
CONTRAST_JS = """
(element) => {
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  let node = element, back = null, alpha = 1;
  for (; node && node.nodeType === 1; node = node.parentElement) {
    const style = getComputedStyle(node);
    alpha *= Number(style.opacity);
    const bg = rgb(style.backgroundColor);
    if (!back && bg.length >= 3 && (bg.length === 3 || bg[3] === 1)) back = bg.slice(0, 3);
  }
  back = back || [255, 255, 255];
  const fg = rgb(getComputedStyle(element).color).slice(0, 3).map((v, i) => v * alpha + back[i] * (1 - alpha));
  const [hi, lo] = [lum(fg), lum(back)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}
"""
AA = 4.5


def _demo_plan() -> Plan:
    return Plan.objects.get(requested_by="token:demo-agent")


def _shoot(page: Page, name: str) -> None:
    for label, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
        screenshot(page, f"review-{name}-{label}")
    page.set_viewport_size({"width": 1280, "height": 800})


def _lowest_contrast(page: Page, selector: str) -> float:
    elements = page.locator(selector).all()
    assert elements, f"nothing matches {selector}"
    return min(float(e.evaluate(CONTRAST_JS)) for e in elements)


def test_the_header_is_one_height_on_every_page(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    plan = _demo_plan()
    log_in(page, live_server.url, "admin")
    paths = [
        "/",
        "/queue/",
        "/turns/",
        "/turns/import/",
        "/explorer/",
        "/components/",
        "/plans/",
        f"/plans/{plan.plan_id}/",
        "/history/",
        "/agreement/",
        "/skills/",
        "/accounts/",
        "/webhooks/",
        "/tokens/",
        "/projects/",
        "/projects/default/",
        "/projects/default/members/",
    ]
    for width, height in WIDTHS.values():
        page.set_viewport_size({"width": width, "height": height})
        heights = {}
        for path in paths:
            page.goto(f"{live_server.url}{path}")
            heights[path] = page.locator("header.bar").bounding_box()["height"]  # type: ignore[index]
        assert len(set(heights.values())) == 1, (width, heights)


def _rate_as(username: str, correlation_id: str) -> None:
    """A person's rating of a demo turn, stored by the service the rating page uses."""
    FeedbackFactory.create(
        by=principal_for_user(User.objects.get(username=username)),
        turn=Turn.objects.get(correlation_id=correlation_id),
        carries_turn=True,
    )


def test_risk_badges_and_rated_rows_read_at_aa_contrast_with_a_cue_besides_colour(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    plan = _demo_plan()
    log_in(page, live_server.url, "reviewer", f"/plans/{plan.plan_id}/")
    assert _lowest_contrast(page, ".risk") >= AA
    for level in ("low", "medium", "high"):
        expect(page.locator(f".risk-{level}").first).to_contain_text(f"{level} risk")
    marker = page.locator(".risk-high").first.evaluate(
        "(e) => getComputedStyle(e, '::before').content"
    )
    assert "▲" in marker

    turn = Turn.objects.filter(ratings_needed__gt=0).order_by("id").first()
    assert turn is not None
    _rate_as("reviewer", turn.correlation_id)
    page.goto(f"{live_server.url}/turns/")
    rated = page.locator("li.turn.is-rated")
    expect(rated.first).to_be_visible()
    assert _lowest_contrast(page, "li.turn.is-rated .muted, li.turn.is-rated .response") >= AA
    cue = rated.first.locator(".status-rated").evaluate(
        "(e) => getComputedStyle(e, '::before').content"
    )
    assert "✓" in cue
    _shoot(page, "turns-rated")


def test_a_reviewer_applies_a_whole_plan_with_one_confirmation(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    plan = _demo_plan()
    shown = plan.proposals.filter(status="pending").count()
    log_in(page, live_server.url, "reviewer", f"/plans/{plan.plan_id}/")
    _shoot(page, "plan")
    page.get_by_role("button", name=f"Apply all {shown} open…").click()
    page.wait_for_selector("#confirm")
    expect(page.locator(".bulk-list li")).to_have_count(shown)
    _shoot(page, "confirm-all")
    assert not Proposal.objects.filter(plan=plan, status="applied").exists()
    page.get_by_role("button", name=f"Yes, apply {shown} proposals").click()
    expect(page.locator(".message-success")).to_contain_text(f"{shown} of {shown}: Applied")
    assert Proposal.objects.filter(plan=plan, status="applied").count() == shown
    _shoot(page, "plan-applied")

    skill = plan.proposals.filter(target="skill_file").order_by("id").first()
    assert skill is not None
    page.locator(f"article#{skill.proposal_id} button.rollback").click()
    page.wait_for_selector("#confirm")
    expect(page.locator(".changes-list .change")).to_contain_text("deletes the file")
    _shoot(page, "confirm-rollback")
    page.goto(f"{live_server.url}/history/")
    expect(page.locator("#history-list .change").first).not_to_contain_text("None")
    _shoot(page, "history")


def test_the_changed_overview_explorer_and_components_pages_fit_both_widths(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, live_server.url, "annotator")
    expect(page.locator(".tiles")).not_to_contain_text("proposals awaiting review")
    _shoot(page, "home-annotator")
    page.goto(f"{live_server.url}/explorer/?limit=5")
    expect(page.locator("#matches")).to_contain_text("match")
    page.locator("a[rel=next]").click()
    expect(page.locator("a[rel=prev]")).to_be_visible()
    _shoot(page, "explorer-older")
    page.goto(f"{live_server.url}/components/")
    _shoot(page, "components")
