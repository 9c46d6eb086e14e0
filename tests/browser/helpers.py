"""What the browser tests share: Chromium's flags, logging in, and screenshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from learnportal import demo

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def screenshot(page: Any, name: str, *, full_page: bool = True) -> None:
    folder = Path(settings.VAR_DIR) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=full_page)


def fits(page: Any) -> None:
    """The page is no wider than its window: nothing to scroll sideways to."""
    sideways = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert sideways <= 0, f"{page.url} scrolls sideways by {sideways}px"


# The response's characters [start, end) selected, as a drag, or a long press and the selection's
# handles on a phone, leave them (page.evaluate(SELECT_IN_RESPONSE, [start, end])).
SELECT_IN_RESPONSE = """([start, end]) => {
  const text = document.getElementById("response-text").firstChild;
  const range = document.createRange();
  range.setStart(text, start);
  range.setEnd(text, end);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}"""


def log_in(page: Any, base_url: str, username: str, next_path: str = "/") -> None:
    page.goto(f"{base_url}/login/?next={next_path}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", demo.DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}{next_path}")


def shown_once(page: Any, button: str) -> str:
    """Press the button that makes a secret (a token, a webhook's secret): what the page shows."""
    from playwright.sync_api import expect

    page.get_by_role("button", name=button).click()
    shown = page.locator("#new-token-value")
    expect(shown).to_be_visible()
    return str(shown.input_value())


def answer_in_page(page: Any, *, confirm: bool) -> str:
    """Answer the in-page question a data-confirm form asks (static/portal/confirm.js); return
    the question."""
    from playwright.sync_api import expect

    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_be_visible()
    question = str(dialog.locator("h2").inner_text())
    if confirm:
        dialog.locator("button[value=confirm]").click()
    else:
        dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    return question
