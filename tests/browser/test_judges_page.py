"""A reviewer reads /judges/ in headless Chromium: on a 390 px phone the page, two judges (one
with a very long name), fits the window and a confusion opens by a tap; at 1280 px one opens
by keyboard (Tab to its summary, Enter). Nothing the Content-Security-Policy blocks.
Screenshots: var/screenshots/judges-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from learnportal import demo
from tests.browser.helpers import fits, log_in, screenshot
from tests.builders import feedback, feedback_req, turn
from tests.factories import UserFactory
from tests.harness import human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LEVELS = [-1.0, -0.5, 0.0, 0.5, 1.0]
KEYS = [f"t-{i}" for i in range(15)]
LONG_NAME = "gym-" + "evaluator" * 15  # no line can hold it
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def two_judges() -> None:
    """15 turns a person rated; `gym` scores as they do, the long-named one at random-ish."""
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in KEYS]}
    assert token_actor("agent-j", "agent").rest("post", "/api/turns/", body).status_code == 201
    truth = {key: LEVELS[i % len(LEVELS)] for i, key in enumerate(KEYS)}
    people = [
        feedback(feedback_id=f"h-{key}", source="human", score=score, correlation_id=key)
        for key, score in truth.items()
    ]
    assert human_actor("pia", "annotator").learn(feedback_req(*people)).status_code == 200
    for name, shift in (("gym", 0), (LONG_NAME, 2)):
        items = [
            feedback(
                feedback_id=f"{name[:8]}-{key}",
                source="env",
                score=LEVELS[(i + shift * (i % 2)) % len(LEVELS)],
                correlation_id=key,
            )
            for i, key in enumerate(KEYS)
        ]
        assert token_actor(name, "environment").learn(feedback_req(*items)).status_code == 200


def reviewer(chromium: Browser, live_server: LiveServer, width: int, *, touch: bool) -> Page:
    UserFactory.create(username="rita", role="reviewer", password=demo.DEMO_PASSWORD)
    context = chromium.new_context(
        viewport={"width": width, "height": 844 if touch else 800},
        has_touch=touch,
        is_mobile=touch,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, live_server.url, "rita", "/judges/")
    return page


def clean(page: Page) -> None:
    fits(page)
    assert page.evaluate("window.__cspViolations") == []


def test_on_a_phone_the_page_fits_and_a_confusion_opens_by_tap(
    live_server: LiveServer, chromium: Browser
) -> None:
    two_judges()
    page = reviewer(chromium, live_server, 390, touch=True)
    expect(page.locator(".judge-card")).to_have_count(2)
    clean(page)
    confusion = page.locator("details.judge-confusion").first
    confusion.locator("summary").tap()
    expect(confusion.locator("table.confusion")).to_be_visible()
    assert confusion.get_attribute("open") is not None
    clean(page)
    for chip in page.locator(".judge-chip").all():
        box = chip.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    screenshot(page, "judges-390")


def test_at_1280_a_confusion_opens_by_keyboard(live_server: LiveServer, chromium: Browser) -> None:
    two_judges()
    page = reviewer(chromium, live_server, 1280, touch=False)
    clean(page)
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('details.judge-confusion summary')"):
            break
    else:
        pytest.fail("no confusion's summary is reached by Tab")
    page.keyboard.press("Enter")
    opened = page.locator("details.judge-confusion[open]")
    expect(opened).to_have_count(1)
    expect(opened.locator("table.confusion")).to_be_visible()
    expect(opened.locator("td.agreed")).to_have_count(3)
    clean(page)
    screenshot(page, "judges-1280")
