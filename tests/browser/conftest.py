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

    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def _module_chromium() -> Iterator[Browser]:
    """One Chromium a module (starting one costs about a second)."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the test's own ORM reads are
    # still plain synchronous calls, so Django's async guard would refuse them.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def chromium(_module_chromium: Browser) -> Iterator[Browser]:
    """The browser itself, for tests that need more than one context (two people at once).
    Every context a test opens is closed after it: no cookie, storage, permission or open
    socket outlives the test."""
    yield _module_chromium
    for context in _module_chromium.contexts:
        context.close()


@pytest.fixture
def browser_page(chromium: Browser) -> Page:
    page = chromium.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_default_timeout(10_000)
    return page
