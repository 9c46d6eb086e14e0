"""The side-by-side diff of a learnings file (templates/refinement/partials/side_by_side.html)
at 1280 and 390 px: two columns on a desktop; below 600 px the new text stacks under the old,
so that no side is ever off-screen. Screenshots: var/screenshots/side-by-side-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from learnportal.demo import DEMO_AGENT
from refinement.paths import Target
from refinement.proposals import ProposalInput
from tests.browser.helpers import log_in, screenshot
from tests.factories import PlanFactory, StoreValueFactory

if TYPE_CHECKING:
    from playwright.sync_api import Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PATH = "learnings/_global/SKILL.md"
OLD = "# Skill\n\nRead the references before answering.\nKeep answers short.\n"
NEW = OLD.replace("Keep answers short.", "Keep answers short, and cite the reference used.")

# Where a cell is, and whether it is shown at all.
BOX = """(cell) => {
  const box = cell.getBoundingClientRect();
  return {left: box.left, right: box.right, top: box.top, shown: box.width > 0};
}"""


def _edited_plan_page(page: Page, base_url: str) -> None:
    StoreValueFactory.create(path=PATH, value=OLD)
    edit = ProposalInput(
        target=Target.SKILL_FILE, op="update", path=PATH, old_value=OLD, new_value=NEW
    )
    plan = PlanFactory.create(by=DEMO_AGENT, proposals=[edit], summary="cite references")
    log_in(page, base_url, "reviewer", f"/plans/{plan.plan_id}/")


def test_the_new_text_stands_beside_the_old_on_a_desktop_and_under_it_on_a_phone(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    _edited_plan_page(page, live_server.url)
    changed = page.locator("table.sbs tr.sbs-change")
    old, new = changed.locator("td.old"), changed.locator("td.new")
    expect(new).to_contain_text("cite the reference used")
    before, after = old.evaluate(BOX), new.evaluate(BOX)
    assert after["left"] >= before["right"]  # side by side
    screenshot(page, "side-by-side-desktop")

    page.set_viewport_size({"width": 390, "height": 844})
    before, after = old.evaluate(BOX), new.evaluate(BOX)
    assert after["top"] > before["top"]  # stacked: the new line under the old
    assert after["right"] <= 390 and after["shown"]  # and on screen, not scrolled away
    wrap = page.locator(".sbs-wrap")
    assert wrap.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    same = page.locator("table.sbs tr.sbs-same").first
    assert not same.locator("td.new").evaluate(BOX)["shown"]  # an unchanged line, once
    screenshot(page, "side-by-side-phone")
