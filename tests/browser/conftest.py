"""Headless Chromium against pytest-django's live server, and the demo data to drive it."""

from __future__ import annotations

from typing import Any

import pytest

from learnportal import demo
from tests.browser.helpers import CHROMIUM_ARGS


@pytest.fixture
def browser_page(monkeypatch: pytest.MonkeyPatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the test's own ORM reads are
    # still plain synchronous calls, so Django's async guard would refuse them.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.set_default_timeout(10_000)
        yield page
        browser.close()


@pytest.fixture
def seeded(settings: Any) -> None:
    # The real password hasher would dominate these tests; the demo users need no strength here.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    demo.seed_demo()
