"""Turns from a file in Chromium, on the real ASGI server: a reviewer follows Import in the
navigation, uploads a 1,000-row JSONL and then a CSV, sees the preview and the guessed columns,
imports with the progress bar (one batch a request) and reads the refused rows. Screenshots at
1280 and 390 px land in var/screenshots/import-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest

from feedback.models import Turn
from tests.browser.helpers import log_in, screenshot

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    # Static files under ASGI (as `make run` serves them) stream from a file; Django says so.
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]

ROWS = 1000
BATCH = 250
BAD_ROWS = {17: "no response", 500: "not JSON"}


def jsonl_file(path: Path) -> Path:
    lines = []
    for number in range(1, ROWS + 1):
        row: dict[str, Any] = {
            "id": f"browser-{number}",
            "data": {"prompt": f"Question {number}?", "response": f"Answer {number}."},
            "model": "agent-v1",
            "meta": {"batch": number // BATCH},
        }
        if BAD_ROWS.get(number) == "no response":
            del row["data"]["response"]
        line = b"{not json" if BAD_ROWS.get(number) == "not JSON" else orjson.dumps(row)
        lines.append(line + b"\n")
    path.write_bytes(b"".join(lines))
    return path


def csv_file(path: Path) -> Path:
    rows = ["id,question,answer,model,session"]
    rows += [f"csv-{n},Prompt {n},Reply {n},csv-model,s-{n % 7}" for n in range(1, 301)]
    rows[42] = "csv-42,Prompt 42,,csv-model,s-0"
    path.write_text("\n".join(rows) + "\n")
    return path


def import_through_the_page(page: Page, base: str, file: Path) -> list[str]:
    """Upload `file`, import it with the mapping the page guessed; the step requests' URLs."""
    page.goto(f"{base}/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Import").click()
    page.wait_for_url(f"{base}/turns/import/")
    page.set_input_files("input[name=file]", str(file))
    page.get_by_role("button", name="Upload and preview").click()
    page.wait_for_selector("table.import-preview")
    steps: list[str] = []
    page.on("request", lambda r: steps.append(r.url) if r.method == "POST" else None)
    page.locator("#import-run").click()
    page.wait_for_selector(".import-state[data-finished='1']", timeout=60_000)
    return steps


def fits(page: Page, name: str) -> None:
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 844 if width < 600 else 800})
        screenshot(page, f"import-{name}-{width}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.set_viewport_size({"width": 1280, "height": 800})


def test_a_reviewer_imports_a_thousand_jsonl_rows_and_a_csv_and_reads_the_report(
    seeded: None, asgi_server: str, browser_page: Page, tmp_path: Path, settings: Any
) -> None:
    settings.LEARNPORTAL_MAX_BATCH = BATCH
    page = browser_page
    log_in(page, asgi_server, "reviewer")

    steps = import_through_the_page(page, asgi_server, jsonl_file(tmp_path / "turns.jsonl"))
    assert len(steps) == ROWS // BATCH  # one request a batch: the bar moved four times
    bar = page.locator("#import-bar")
    assert (bar.get_attribute("value"), bar.get_attribute("max")) == (str(ROWS), str(ROWS))
    assert page.locator(".import-totals .created").inner_text() == str(ROWS - len(BAD_ROWS))
    refused = page.locator("table.refused-rows tbody tr")
    no_response, not_json = refused.all_inner_texts()
    assert (
        no_response == "17\tresponse\tdata.response\tno response: the column is empty in this row"
    )
    assert not_json.startswith("500\trow\t—\tnot JSON: unexpected character")
    assert Turn.objects.filter(correlation_id__startswith="browser-").count() == ROWS - 2
    fits(page, "jsonl")

    import_through_the_page(page, asgi_server, csv_file(tmp_path / "turns.csv"))
    assert page.locator(".import-totals .created").inner_text() == "299"
    assert refused.all_inner_texts() == [
        "42\tresponse\tanswer\tno response: the column is empty in this row"
    ]
    assert Turn.objects.filter(correlation_id__startswith="csv-", model="csv-model").count() == 299
    fits(page, "csv")
    page.goto(f"{asgi_server}/turns/import/")
    fits(page, "upload")
