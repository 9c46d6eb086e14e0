"""A manager keeps the intake rules and the queue's assignments on /intake/ in headless Chromium,
at 1280 px and on a 390 px phone: adds a rule through the form, reads it in words with what it
let in, deletes it after the page asks, and keeps a component for a named person; the page
fits the window and the Content-Security-Policy blocks nothing.
Screenshots: var/screenshots/intake-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from feedback.assignments.models import QueueAssignment
from feedback.intake.models import IntakeRule
from learnportal import demo
from tests.browser.helpers import fits, log_in, screenshot
from tests.browser.test_annotators_page import RECORD_VIOLATIONS
from tests.builders import turn
from tests.factories import UserFactory
from tests.harness import human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def manager(chromium: Browser, live_server: LiveServer, width: int) -> Page:
    UserFactory.create(username="lena", role="manager", password=demo.DEMO_PASSWORD)
    phone = width < 700
    context = chromium.new_context(
        viewport={"width": width, "height": 844 if phone else 800},
        has_touch=phone,
        is_mobile=phone,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, live_server.url, "lena", "/intake/")
    return page


@pytest.mark.parametrize("width", [1280, 390])
def test_a_manager_adds_reads_and_deletes_a_rule_and_keeps_a_component_for_someone(
    live_server: LiveServer, chromium: Browser, width: int
) -> None:
    human_actor("ada", "annotator")
    page = manager(chromium, live_server, width)
    expect(page.locator("#rules-empty")).to_be_visible()

    page.fill("#id_name", "Negative environment feedback")
    page.fill("#id_rate", "1")
    page.select_option("#id_source", "env")
    page.select_option("#id_polarity", "negative")
    with page.expect_navigation():
        page.get_by_role("button", name="Add the rule").click()
    expect(page.locator(".messages")).to_contain_text("Added the rule Negative environment")
    row = page.locator("tr[data-rule]")
    expect(row).to_have_count(1)
    expect(row.locator(".intake-takes")).to_have_text("on environments' feedback, negative")

    body = {"turns": [{"correlation_id": "t-1", "rated_turn": turn()}]}
    assert token_actor("agent-a", "agent").rest("post", "/api/turns/", body).status_code == 201
    env = token_actor("gym", "environment")
    bad = {"feedback_id": "f-1", "correlation_id": "t-1", "source": "env"}
    sent = {
        "type": "learn/feedback/req",
        "id": "r-1",
        "feedbacks": [{**bad, "polarity": "negative", "score": -1}],
    }
    assert env.learn(sent).status_code == 200
    page.reload()
    expect(page.locator("tr[data-rule] .intake-sent")).to_have_text("1")

    page.fill("#id_assign-component", "legal")
    page.fill("#id_assign-usernames", "ada")
    with page.expect_navigation():
        page.get_by_role("button", name="Keep it for them").click()
    expect(page.locator("tr[data-assignment]")).to_contain_text("Turns of legal")
    assert QueueAssignment.objects.get().usernames == ["ada"]
    fits(page)
    screenshot(page, f"intake-{width}")

    page.get_by_role("button", name="Delete the rule Negative environment feedback").click()
    dialog = page.locator("dialog.confirm-dialog")
    expect(dialog).to_be_visible()
    with page.expect_navigation():
        dialog.get_by_role("button", name="Delete").click()
    expect(page.locator("#rules-empty")).to_be_visible()
    assert not IntakeRule.objects.exists()
    fits(page)
    assert page.evaluate("window.__cspViolations") == []
