"""The portal as a person sees it, in headless Chromium. Screenshots land in var/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from learnportal import demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def browser_page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        yield page
        browser.close()


def _screenshot(page, name: str) -> None:
    folder = Path(settings.VAR_DIR) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@pytest.fixture
def seeded() -> None:
    demo.seed_demo()


def test_a_reviewer_logs_in_and_sees_components_and_the_pending_plan(
    seeded, live_server, browser_page
):
    page = browser_page
    page.goto(f"{live_server.url}/")
    assert "/login/" in page.url
    page.fill("input[name=username]", "reviewer")
    page.fill("input[name=password]", demo.DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("text=Components")
    _screenshot(page, "overview")
    assert page.locator("td", has_text="code_review").count() == 1
    pending = page.locator(".tile", has_text="proposals awaiting review").locator(".n").inner_text()
    assert int(pending) > 0


def test_a_wrong_password_is_refused_on_the_page(seeded, live_server, browser_page):
    page = browser_page
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "reviewer")
    page.fill("input[name=password]", "wrong-password")
    page.click("button[type=submit]")
    assert page.locator("[role=alert]").inner_text().startswith("That username and password")
    _screenshot(page, "login-refused")
