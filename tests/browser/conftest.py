"""Headless Chromium against a live server; the demo data to drive it is tests/conftest.py's
`seeded`.

These tests stay in a folder of their own, not under one app's, because they cross the apps:
one Chromium session logs in (learnportal), rates turns (feedback) and decides plans
(refinement), and the policy test opens every page of every app.

`live_server` is pytest-django's (WSGI: pages only); `asgi_server` (tests/conftest.py) serves
the real ASGI application with uvicorn, so that pages reach their WebSockets too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser.helpers import CHROMIUM_ARGS

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Page


@pytest.fixture
def browser_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Page]:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the test's own ORM reads are
    # still plain synchronous calls, so Django's async guard would refuse them.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(10_000)
        yield page
        browser.close()
