"""The portal as a person sees it, in headless Chromium. Screenshots land in var/screenshots/."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from learnportal import demo
from tests.browser.helpers import screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reviewer_logs_in_and_sees_components_and_the_pending_plan(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    page.goto(f"{live_server.url}/")
    assert "/login/" in page.url
    page.fill("input[name=username]", "reviewer")
    page.fill("input[name=password]", demo.DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("text=Components")
    screenshot(page, "overview")
    assert page.locator("td", has_text="code_review").count() == 1
    pending = page.locator(".tile", has_text="proposals awaiting review").locator(".n").inner_text()
    assert int(pending) > 0


def test_a_wrong_password_is_refused_on_the_page(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "reviewer")
    page.fill("input[name=password]", "wrong-password")
    page.click("button[type=submit]")
    assert page.locator("[role=alert]").inner_text().startswith("That username and password")
    screenshot(page, "login-refused")
