"""The feedback explorer in Chromium, on the real ASGI server (so an export streams as `make
run` serves it): filter, page on, open a turn, follow an export link. Screenshots of the explorer
and a turn's detail at 1280 and 390 px land in var/screenshots/explorer-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
import pytest

from feedback.models import Turn
from tests.browser.helpers import log_in, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    # Static files under ASGI (as `make run` serves them) stream from a file; Django says so.
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]


def test_a_reviewer_filters_pages_on_opens_a_turn_and_exports_the_filter(
    seeded: None, asgi_server: str, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, asgi_server, "reviewer", "/explorer/?limit=5")
    rows = page.locator("table.explorer tbody tr")
    assert rows.count() == 5

    page.select_option("select[name=source]", "env")
    page.click("button:has-text('Filter')")
    page.wait_for_url("**source=env**")
    assert all("env" in row.lower() for row in rows.all_inner_texts())
    first = [row.get_attribute("data-feedback-id") for row in rows.all()]
    page.click("a[rel=next]")
    page.wait_for_url("**cursor=**")
    second = [row.get_attribute("data-feedback-id") for row in rows.all()]
    assert len(first) == len(second) == 5 and not set(first) & set(second)
    assert "source=env" in page.url

    page.goto(f"{asgi_server}/explorer/?source=human&polarity=corrective")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 844 if width < 600 else 800})
        screenshot(page, f"explorer-{width}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width

    export = page.locator("a", has_text="trl.jsonl")
    href = export.get_attribute("href")
    assert href == "/api/exports/trl.jsonl?source=human&polarity=corrective"
    response = page.request.get(f"{asgi_server}{href}")
    assert response.ok and response.headers["content-type"] == "application/jsonl"
    lines = [orjson.loads(line) for line in response.body().splitlines()]
    assert len(lines) == 3 and all(set(line) == {"prompt", "chosen", "rejected"} for line in lines)

    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator("a.open-turn").first.click()
    page.wait_for_url("**/explorer/turns/**")
    turn = Turn.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert page.locator(".response-text").inner_text() == turn.response
    assert page.locator("table.ratings tbody tr").count() >= 1
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 844 if width < 600 else 800})
        screenshot(page, f"explorer-detail-{width}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_an_annotator_sees_no_export_links_and_a_blind_note(
    seeded: None, asgi_server: str, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, asgi_server, "annotator", "/explorer/")
    assert page.locator("text=other people's ratings stay hidden").count() == 1
    assert page.locator("a", has_text=".jsonl").count() == 0
    response = page.request.get(f"{asgi_server}/api/exports/trl.jsonl")
    assert response.status == 403
    # Keyboard: the first filter takes focus by Tab from the navigation, visibly.
    page.focus("select[name=source]")
    assert page.evaluate("document.activeElement.name") == "source"
