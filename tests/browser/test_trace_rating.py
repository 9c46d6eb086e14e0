"""An annotator reads an agent's run as a tree of steps and rates one tool call by keyboard, blind
and under their lease, at 1280 and 390 px; on a phone, by touch. Screenshots:
var/screenshots/trace-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from feedback.models import Lease, Rating
from learnportal import demo
from tests.browser.helpers import fits, log_in, screenshot
from tests.builders import turn
from tests.factories import UserFactory
from tests.harness import human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5, "step": 1,
     "hotkeys": ["1", "2", "3", "4", "5"]},
    {"kind": "boolean", "key": "tool_ok", "label": "Tool call correct?", "required": True,
     "hotkeys": ["y", "n"], "step_kinds": ["tool"]},
    {"kind": "text", "key": "why", "label": "What went wrong", "hotkeys": ["m"],
     "step_kinds": ["tool"]},
]  # fmt: skip
STEPS: list[dict[str, Any]] = [
    {"step_id": "a1", "name": "support-agent", "kind": "agent", "start": 100.0, "end": 104.2},
    {"step_id": "b2", "parent_id": "a1", "name": "plan", "kind": "llm", "start": 100.1,
     "end": 101.0, "output": "Look the order up, then answer.", "tokens_in": 812,
     "tokens_out": 40},
    {"step_id": "c3", "parent_id": "a1", "name": "lookup_order", "kind": "tool", "start": 101.0,
     "end": 102.5, "input": '{"order_id": "A-1009", "fields": ["status", "eta"]}',
     "output": '{"status": "shipped", "eta": "2026-12-09"}'},
    {"step_id": "d4", "parent_id": "c3", "name": "GET /orders/A-1009", "kind": "other",
     "start": 101.1, "end": 102.4},
    {"step_id": "e5", "parent_id": "a1", "name": "answer", "kind": "llm", "start": 102.6,
     "end": 104.2, "status": "error", "error": "rate limited by the model provider"},
]  # fmt: skip


@pytest.fixture
def traced(db: None) -> None:
    boss = human_actor("boss", "admin")
    written = boss.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC})
    assert written.status_code == 200, written.content
    agent = token_actor("support", "agent")
    body = {
        "turns": [
            {
                "correlation_id": "run-1",
                "session_id": "conv-1",
                "component_name": "support-agent",
                "rated_turn": turn(),
                "steps": STEPS,
            },
            {
                "correlation_id": "run-2",
                "session_id": "conv-1",
                "component_name": "support-agent",
                "rated_turn": turn(prompt="And when will it arrive?", response="On the 9th."),
            },
        ]
    }
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    UserFactory.create(username="aria", role="annotator", password=demo.DEMO_PASSWORD)


@pytest.mark.parametrize("width", [1280, 390])
def test_an_annotator_rates_one_tool_call_of_a_run_by_keyboard(
    traced: None, live_server: LiveServer, chromium: Browser, width: int
) -> None:
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "aria", "/queue/")
    rows = page.locator(".step-row")
    expect(rows).to_have_count(5)
    expect(page.locator("li.step-error .step-label")).to_have_text("answer")
    rows.first.focus()
    page.keyboard.press("ArrowLeft")  # fold the agent's steps away
    expect(rows.nth(1)).to_be_hidden()
    page.keyboard.press("ArrowRight")
    expect(rows.nth(1)).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(rows.nth(2)).to_be_focused()
    page.keyboard.press("ArrowLeft")  # the tool's own step folds away
    expect(rows.nth(3)).to_be_hidden()
    page.keyboard.press("Enter")  # open the tool step: its input and output, JSON indented
    tool = page.locator('li[data-step="c3"]')
    expect(tool.locator("pre.step-text").first).to_contain_text('"order_id": "A-1009"')
    fits(page)
    screenshot(page, f"trace-run-{width}")
    page.keyboard.press("Tab")
    expect(tool.locator("a.rate-step")).to_be_focused()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator(".rated-step-note")).to_contain_text("lookup_order")
    expect(page.locator("#rubric-form legend")).to_have_text(
        ["Tool call correct? *", "What went wrong"]
    )
    expect(page.locator("#response-text")).to_have_text(
        '{"status": "shipped", "eta": "2026-12-09"}'
    )
    page.locator("body").focus()
    page.keyboard.press("n")
    page.keyboard.press("m")
    page.keyboard.type("It asked for the eta but the answer never used it.")
    page.keyboard.press("Escape")
    fits(page)
    screenshot(page, f"trace-step-form-{width}")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    rating = Rating.objects.get()
    assert (rating.step_id, rating.annotator) == ("c3", "aria")
    assert rating.answers == {
        "tool_ok": False,
        "why": "It asked for the eta but the answer never used it.",
    }
    # Still theirs: a step rated, the turn is left to rate.
    assert Lease.objects.filter(username="aria", turn__correlation_id="run-1", step_id="").exists()


def test_a_step_is_opened_and_rated_by_touch_on_a_phone(
    traced: None, live_server: LiveServer, chromium: Browser
) -> None:
    phone = chromium.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    ).new_page()
    phone.set_default_timeout(10_000)
    log_in(phone, live_server.url, "aria", "/queue/")
    phone.locator('li[data-step="c3"] .step-row').tap()
    phone.locator('li[data-step="c3"] a.rate-step').tap()
    phone.wait_for_url("**/queue/?step=c3")
    phone.locator("label.pill", has_text="Yes").tap()
    fits(phone)
    screenshot(phone, "trace-step-touch-390")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Submit rating").tap()
    rating = Rating.objects.get()
    assert (rating.step_id, rating.answers) == ("c3", {"tool_ok": True})


@pytest.mark.parametrize("width", [1280, 390])
def test_a_session_reads_as_its_turns_in_order(
    traced: None, live_server: LiveServer, chromium: Browser, width: int
) -> None:
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "aria", "/queue/")
    with page.expect_navigation():
        page.locator(".turn-facts a", has_text="conv-1").click()
    expect(page.locator(".session-turns .prompt")).to_have_text(
        ["What is the answer?", "And when will it arrive?"]
    )
    expect(page.locator(".session-turns .turn-meta").first).to_contain_text("5 steps")
    fits(page)
    screenshot(page, f"trace-session-{width}")


@pytest.mark.parametrize("width", [1280, 390])
def test_an_annotator_rates_a_whole_session_from_the_queue_by_keyboard_blind(
    traced: None, live_server: LiveServer, chromium: Browser, width: int, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    olga = human_actor("olga", "annotator")
    rated = olga.rest("post", "/api/ratings/", {"session_id": "conv-1", "answers": {"quality": 1}})
    assert rated.status_code == 201, rated.content
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "aria", "/queue/")
    with page.expect_navigation():
        page.locator(".queue-modes a", has_text="Sessions").click()
    expect(page.locator("#session-label")).to_have_text("The session to rate: conv-1")
    expect(page.locator(".session-turns .prompt")).to_have_text(
        ["What is the answer?", "And when will it arrive?"]
    )
    expect(page.locator("#rubric-form legend")).to_have_text(["Quality"])  # no tool question
    expect(page.locator(".blind-note")).to_contain_text("this session stay hidden")
    assert Lease.objects.get(username="aria").step_id == "@session"
    fits(page)
    screenshot(page, f"trace-session-rate-{width}")
    page.locator("body").focus()
    page.keyboard.press("4")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    mine = Rating.objects.get(annotator="aria")
    assert (mine.step_id, mine.turn.correlation_id, mine.answers) == (
        "@session",
        "run-1",
        {"quality": 4.0},
    )
    expect(page.locator("#empty-title")).to_be_visible()  # the one session is rated
    assert not Lease.objects.filter(username="aria").exists()
    page.goto(f"{live_server.url}/sessions/?id=conv-1")
    shown = page.locator("section[aria-labelledby=session-ratings] table.ratings tbody tr")
    expect(shown).to_have_count(2)
    expect(shown.first).to_contain_text("the session")
    fits(page)
    screenshot(page, f"trace-session-rated-{width}")
