"""The rubric's questions of candidates on /compare/, as an annotator answers them: by keyboard
at 1280 px (Tab to a candidate's question, Space to choose, then 1-5 and Enter) and by touch on
a phone at 390 px; a required one left out is refused beside its candidate and kept as chosen.
Screenshots: /tmp/compare-questions-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from feedback.comparisons.models import Judgment
from feedback.pages.rubric_form import candidate_prefix
from tests.browser.test_comparison_judging import order_for, pair, person, shot, submit
from tests.harness import human_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTIONS: list[dict[str, Any]] = [
    {"key": "overall", "kind": "numeric", "label": "Overall", "min": 1, "max": 5},
    {"key": "factual", "kind": "boolean", "label": "Factual?", "candidates": True, "required": True},
    {"key": "register", "kind": "categorical", "label": "Register", "options": ["dry", "warm"],
     "candidates": True},
]  # fmt: skip


@pytest.fixture
def asked(transactional_db: None) -> None:
    lead = human_actor("lead", "manager")
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": QUESTIONS}).status_code
        == 200
    )


def choice(page: Page, candidate: str, key: str, value: str) -> Any:
    return page.locator(f"input[name='{candidate_prefix(candidate)}{key}'][value='{value}']")


def test_by_keyboard_each_candidates_questions_are_answered_and_stored(
    live_server: LiveServer, chromium: Browser, asked: None
) -> None:
    (pk,) = submit(pair("c-1", priority=0))
    page = person(chromium, live_server, "aria", 1280)
    first, second = order_for(pk, "aria")
    expect(page.locator(".candidate-questions")).to_have_count(2)
    choice(page, first, "factual", "yes").focus()
    page.keyboard.press("Space")
    expect(choice(page, first, "factual", "yes")).to_be_checked()
    page.keyboard.press("Tab")  # on to the next question, Register
    page.keyboard.press("Space")
    expect(choice(page, first, "register", "dry")).to_be_checked()
    choice(page, second, "factual", "yes").focus()
    page.keyboard.press("ArrowRight")  # a radio group: the arrow moves to No and checks it
    expect(choice(page, second, "factual", "no")).to_be_checked()
    page.locator("body").click(position={"x": 5, "y": 300})  # leave the fields: keys are the page's
    page.keyboard.press("2")
    expect(page.locator("input[name=preference][value='-1']")).to_be_checked()
    shot(page, "compare-questions-1280")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    stored = Judgment.objects.get(comparison_id=pk)
    assert stored.answers == {"factual": {first: True, second: False}, "register": {first: "dry"}}
    assert stored.preference == -1


def test_on_a_phone_a_required_answer_left_out_is_refused_beside_it_and_the_taps_are_kept(
    live_server: LiveServer, chromium: Browser, asked: None
) -> None:
    (pk,) = submit(pair("c-1", priority=0))
    page = person(chromium, live_server, "ben", 390, touch=True)
    first, second = order_for(pk, "ben")
    choice(page, first, "factual", "no").locator("xpath=..").tap()
    choice(page, second, "register", "warm").locator("xpath=..").tap()
    page.locator("input[name=preference][value='1']").locator("xpath=..").tap()
    with page.expect_navigation():
        page.locator("#judge-form button[type=submit]").tap()
    error = page.locator(f"#{candidate_prefix(second)}factual-error")
    expect(error).to_contain_text("required")
    expect(choice(page, first, "factual", "no")).to_be_checked()
    expect(choice(page, second, "register", "warm")).to_be_checked()
    expect(page.locator("input[name=preference][value='1']")).to_be_checked()
    shot(page, "compare-questions-refused-390")
    assert not Judgment.objects.exists()
    choice(page, second, "factual", "yes").locator("xpath=..").tap()
    with page.expect_navigation():
        page.locator("#judge-form button[type=submit]").tap()
    stored = Judgment.objects.get(comparison_id=pk)
    assert stored.answers == {"factual": {first: False, second: True}, "register": {second: "warm"}}
