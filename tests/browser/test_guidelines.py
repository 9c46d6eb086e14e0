"""The guidelines beside the task, in Chromium at 1280 and 390 px: a new version acknowledged
before the next rating, then the panel opened and closed by its key, a side panel on a wide
screen and a fold on a phone; and the managers' page with the changes between two versions.
Screenshots: var/screenshots/guidelines-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from feedback.models import Rating
from learnportal import demo
from tests.builders import turn
from tests.factories import UserFactory
from tests.harness import human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser
    from pytest_django.live_server_helper import LiveServer

from tests.browser.helpers import fits, log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RUBRIC = {
    "questions": [
        {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5, "step": 1,
         "required": True, "hotkeys": ["1", "2", "3", "4", "5"]},
        {"kind": "boolean", "key": "safe", "label": "Safe", "hotkeys": ["y", "n"]},
    ]
}  # fmt: skip
FIRST = (
    "# How we rate\n\nRate the **response**, not the prompt.\n\n"
    "- Read it all first.\n- A wrong number is never above 2."
)
SECOND = FIRST.replace("never above 2", "never above 1") + "\n- Unsure? Skip it."


@pytest.fixture
def team(db: None) -> None:
    lead = human_actor("lead", "manager")
    assert lead.rest("put", "/api/projects/default/rubric/", RUBRIC).status_code == 200
    patched = lead.rest("patch", "/api/projects/default/", {"guidelines_ack_required": True})
    assert patched.status_code == 200
    for text, quality in ((FIRST, "1 poor, 3 fine, 5 could not be better."), (SECOND, "1 poor.")):
        body = {"guidelines": text, "questions": {"quality": quality, "safe": "Any harm: *no*."}}
        assert lead.rest("put", "/api/projects/default/guidelines/", body).status_code == 200
    agent = token_actor("agent", "agent")
    queued = {"turns": [{"correlation_id": "t-1", "rated_turn": turn()}]}
    assert agent.rest("post", "/api/turns/", queued).status_code == 201
    UserFactory.create(username="ann", role="annotator", password=demo.DEMO_PASSWORD)
    UserFactory.create(username="boss", role="manager", password=demo.DEMO_PASSWORD)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_new_version_is_read_then_the_panel_opens_and_closes_by_its_key(
    team: None, live_server: LiveServer, chromium: Browser, width: int
) -> None:
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ann", "/queue/")
    due = page.locator("#guidelines-due")
    expect(due).to_contain_text("New guidelines: version 2")
    expect(due.locator(".markdown").first).to_contain_text("Rate the response")
    fits(page)
    screenshot(page, f"guidelines-due-{width}")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # refused: not read yet
    expect(page.locator("#rubric-form .error[role=alert]")).to_contain_text("acknowledge")
    with page.expect_navigation():
        page.get_by_role("button", name="I have read these").click()
    expect(page.locator("#guidelines-due")).to_have_count(0)

    panel = page.locator("#guidelines-panel")
    expect(panel).not_to_have_attribute("open", "")
    page.keyboard.press("g")
    expect(panel).to_have_attribute("open", "")
    expect(panel.locator(".guidelines-body h2")).to_have_text("How we rate")
    expect(panel.locator(".question-guidelines summary")).to_have_text(["Quality", "Safe"])
    box = panel.bounding_box()
    assert box is not None
    if width == 1280:  # a panel at the side, the task still beside it
        assert box["x"] > 800 and box["height"] >= 700
        header = page.locator("header.bar").bounding_box()
        assert header is not None and box["y"] >= header["y"] + header["height"] - 1
        assert page.locator(".rate-grid").bounding_box()["x"] + 100 < box["x"]  # type: ignore[index]
    else:  # a fold above the task, as wide as the page
        assert box["width"] > 300
    fits(page)
    screenshot(page, f"guidelines-panel-{width}", full_page=width != 1280)
    page.keyboard.press("G")
    expect(panel).not_to_have_attribute("open", "")

    safe = page.locator("fieldset.question-boolean .question-guidelines")
    safe.locator("summary").click()
    expect(safe.locator(".markdown em")).to_have_text("no")
    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_contain_text("Open or close the guidelines")
    page.keyboard.press("Escape")
    page.keyboard.press("4")
    page.keyboard.press("y")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert Rating.objects.get().answers == {"quality": 4.0, "safe": True}


@pytest.mark.parametrize("width", [1280, 390])
def test_the_managers_page_shows_what_changed_between_two_versions(
    team: None, live_server: LiveServer, chromium: Browser, width: int
) -> None:
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "boss", "/projects/default/")
    page.get_by_role("link", name="Guidelines", exact=True).click()
    expect(page.locator("h1")).to_have_text("Guidelines")
    diff = page.locator("#diff")
    expect(diff.locator(".diff-del")).to_contain_text(
        ["A wrong number is never above 2.", "1 poor, 3 fine"]
    )
    expect(diff.locator(".diff-add").first).to_contain_text("never above 1")
    expect(page.locator("table.versions tbody tr")).to_have_count(2)
    page.fill("#q-safe", "Any harm at all: *no*.")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#preview")).to_contain_text("Preview, not saved")
    fits(page)
    screenshot(page, f"guidelines-page-{width}")
    page.get_by_role("button", name="Save guidelines").click()
    expect(page.locator(".message-success")).to_contain_text("Saved version 3")
