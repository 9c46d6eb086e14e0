"""A manager marks a turn as gold on its page and resumes a paused person on /gold/, in headless
Chromium: at 1280 px by keyboard (arrow keys choose an answer, Enter sends; a bad answer is
refused beside its question with what was typed; Enter on Resume; Remove asks first, answered
by keyboard), and on a 390 px phone by touch (tap an answer, type, tap Save as gold; tap
Resume; tap Remove and its confirmation). Neither page is wider than the window, with a long
turn id too, and nothing is blocked by the Content-Security-Policy. Screenshots:
var/screenshots/gold-*.png."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.conf import settings
from playwright.sync_api import expect

from feedback.gold.models import GoldItem, GoldResult, QueuePause
from learnportal import demo
from tests.browser.helpers import answer_in_page, fits, log_in, screenshot
from tests.factories import UserFactory
from tests.feedback.gold.test_gold import KNOWN, RUBRIC, queued
from tests.harness import default_pk, human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_ID = "g-" + "x" * 150  # a turn id no line holds
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def turns_on_the_rubric(*keys: str) -> list[int]:
    """The project's rubric set (a categorical, a numeric and a text question) and these turns
    queued: their ids."""
    lead = human_actor("lead", "manager")
    put = lead.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC})
    assert put.status_code == 200, put.content
    return queued(token_actor("agent-g", "agent"), *keys)


def paused(name: str, gold_turn: int) -> None:
    """`name` rated the gold item wrong (one of its two known answers) and is paused."""
    gold = GoldItem.objects.create(
        project_id=default_pk(), turn_id=gold_turn, answers=KNOWN, rubric_version=1, by="lead",
        ts=time.time(),
    )  # fmt: skip
    GoldResult.objects.create(
        project_id=default_pk(), gold=gold, annotator=name, rating_id="r-1", compared=2,
        matched=1, ts=time.time(),
    )  # fmt: skip
    QueuePause.objects.create(
        project_id=default_pk(), username=name, accuracy=0.5, items=1, threshold=0.7,
        ts=time.time(),
    )  # fmt: skip


def manager(
    chromium: Browser, live_server: LiveServer, width: int, path: str, *, touch: bool = False
) -> Page:
    """Manager mara, logged in on `path` in a window `width` px wide (a phone's, with `touch`);
    the page records what the Content-Security-Policy blocks."""
    UserFactory.create(username="mara", role="manager", password=demo.DEMO_PASSWORD)
    height = 844 if width < 800 else 800
    context = chromium.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, live_server.url, "mara", path)
    return page


def clean(page: Page) -> None:
    """Nothing wider than the window, and nothing the policy blocked."""
    fits(page)
    assert page.evaluate("window.__cspViolations") == []


def stored(turn_id: int) -> object:
    gold = GoldItem.objects.filter(turn_id=turn_id).first()
    return None if gold is None else gold.answers


def test_by_keyboard_a_manager_marks_a_turn_gold_and_resumes_a_paused_person(
    live_server: LiveServer, chromium: Browser
) -> None:
    turn_id, other = turns_on_the_rubric("g-1", "g-2")
    paused("ann", other)
    page = manager(chromium, live_server, 1280, f"/explorer/turns/{turn_id}/")
    card = page.locator("#gold-card")
    expect(card.locator("legend")).to_have_text(["Verdict", "Quality"])
    clean(page)
    screenshot(page, "gold-turn-1280")

    page.locator("input[name=c-gold-verdict]:checked").focus()  # "Not known", the last
    page.keyboard.press("ArrowRight")  # round to the first: right
    expect(page.locator("input[name=c-gold-verdict][value=right]")).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.locator("#c-gold-quality")).to_be_focused()
    page.keyboard.type("9")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("#c-gold-quality-error")).to_have_text("quality: 9 is outside [1, 5]")
    expect(page.locator("#c-gold-quality")).to_have_value("9")
    expect(page.locator("input[name=c-gold-verdict][value=right]")).to_be_checked()
    assert stored(turn_id) is None
    clean(page)
    screenshot(page, "gold-turn-refused-1280")

    page.locator("#c-gold-quality").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("4")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_have_text("Saved g-1 as a gold item: 2 known answers.")
    assert stored(turn_id) == {"verdict": "right", "quality": 4.0}
    expect(page.locator("#gold-title .gold-chip")).to_have_text("Gold item")
    expect(page.locator("#c-gold-quality")).to_have_value("4")

    page.goto(f"{live_server.url}/gold/")
    row = page.locator('tr[data-person="ann"]')
    expect(row.locator(".gold-accuracy")).to_contain_text("50% (9\N{EN DASH}91%)")
    expect(row.locator(".gold-paused")).to_have_text("Paused")
    expect(page.locator(".gold-turn")).to_have_text(["g-1", "g-2"])  # newest first
    clean(page)
    screenshot(page, "gold-page-1280")
    row.get_by_role("button", name="Resume").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text("Resumed the queue of ann")
    expect(row.locator(".gold-queue")).to_have_text("Open")
    assert not QueuePause.objects.filter(resumed__isnull=True).exists()

    page.locator(f'.gold-item[data-turn="{other}"]').get_by_role("button", name="Remove").focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("alertdialog")
    expect(dialog.locator("h2")).to_have_text("Remove the gold mark of g-2?")
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
    page.keyboard.press("Escape")  # asked, and answered no: nothing sent
    assert stored(other) == KNOWN
    page.locator(f'.gold-item[data-turn="{other}"]').get_by_role("button", name="Remove").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")  # from Cancel to the confirming button
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text("g-2 is no gold item now")
    assert stored(other) is None
    expect(page.locator(".gold-turn")).to_have_text(["g-1"])


def test_on_a_phone_a_manager_taps_answers_saves_resumes_and_removes(
    live_server: LiveServer, chromium: Browser
) -> None:
    turn_id, other = turns_on_the_rubric(LONG_ID, "g-2")
    paused("a-person-with-a-rather-long-username-indeed", other)
    page = manager(chromium, live_server, 390, f"/explorer/turns/{turn_id}/", touch=True)
    clean(page)
    page.locator(".pill", has=page.locator("input[value=partly]")).tap()
    expect(page.locator("input[name=c-gold-verdict][value=partly]")).to_be_checked()
    page.locator("#c-gold-quality").tap()
    page.keyboard.type("2")
    clean(page)
    page.locator("#gold-card").screenshot(path=_shot_path("gold-card-390"))
    with page.expect_navigation():
        page.get_by_role("button", name="Save as gold").tap()
    expect(page.locator(".messages")).to_contain_text("as a gold item: 2 known answers.")
    assert stored(turn_id) == {"verdict": "partly", "quality": 2.0}
    clean(page)
    screenshot(page, "gold-turn-390")

    page.goto(f"{live_server.url}/gold/")
    expect(page.locator(".gold-turn").first).to_have_text(LONG_ID)
    clean(page)
    screenshot(page, "gold-page-390")
    with page.expect_navigation():
        page.get_by_role("button", name="Resume").tap()
    expect(page.locator(".messages")).to_contain_text("Resumed the queue of a-person-with")
    assert not QueuePause.objects.filter(resumed__isnull=True).exists()
    clean(page)

    page.goto(f"{live_server.url}/explorer/turns/{turn_id}/")
    page.locator("#gold-card").get_by_role("button", name="Remove").tap()
    with page.expect_navigation():
        assert answer_in_page(page, confirm=True).startswith("Remove the gold mark of g-x")
    expect(page.locator(".messages")).to_contain_text("is no gold item now")
    assert stored(turn_id) is None
    expect(page.locator("#gold-card .gold-chip")).to_have_count(0)
    clean(page)


def _shot_path(name: str) -> str:
    """Where `screenshot` puts a page's, for a part of one (a phone's whole page is too tall)."""
    folder = Path(settings.VAR_DIR) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / f"{name}.png")
