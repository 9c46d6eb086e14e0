"""Two teams side by side in one portal, each rating on its own rubric by keyboard (and by touch
on a phone), each annotator offered only their project's turns. Screenshots at 1280 and 390 px:
/tmp/shots/rubric-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from core.projects.services import project_add
from feedback.models import Rating
from learnportal import demo
from tests.browser.helpers import SELECT_IN_RESPONSE, fits, log_in, screenshot
from tests.builders import turn
from tests.factories import UserFactory
from tests.harness import human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ALPHA: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5, "step": 1,
     "required": True, "hotkeys": ["1", "2", "3", "4", "5"], "min_label": "Poor",
     "max_label": "Great"},
    {"kind": "categorical", "key": "verdict", "label": "Verdict",
     "options": ["wrong", "partly", "right"], "ordered": True, "hotkeys": ["w", "p", "r"]},
    {"kind": "spans", "key": "errors", "label": "Errors", "options": ["factual", "unsafe"],
     "hotkeys": ["f", "x"], "description": "Mark what is wrong in the response."},
]  # fmt: skip
BETA: list[dict[str, Any]] = [
    {"kind": "boolean", "key": "solved", "label": "Solved the task", "required": True,
     "hotkeys": ["y", "n"]},
    {"kind": "text", "key": "why", "label": "Why", "hotkeys": ["m"]},
]  # fmt: skip


@pytest.fixture
def two_teams(db: None) -> dict[str, str]:
    """Alpha (numeric, ordered choice, spans) and beta (boolean, text): a turn each, and an
    annotator each who is in no other project."""
    responses = {}
    for slug, rubric in (("alpha", ALPHA), ("beta", BETA)):
        project_add(slug=slug, name=slug.capitalize())
        lead = human_actor(f"{slug}-lead", "manager", project=slug)
        written = lead.rest("put", f"/api/projects/{slug}/rubric/", {"questions": rubric})
        assert written.status_code == 200, written.content
        agent = token_actor(f"{slug}-agent", "agent", project=slug)
        rated = turn()
        body = {"turns": [{"correlation_id": f"{slug}-1", "rated_turn": rated}]}
        assert agent.rest("post", "/api/turns/", body).status_code == 201
        UserFactory.create(
            username=f"{slug}-ann", role="annotator", project=slug, password=demo.DEMO_PASSWORD
        )
        responses[slug] = rated["response"]
    return responses


@pytest.mark.parametrize("width", [1280, 390])
def test_two_teams_each_rate_their_own_rubric_by_keyboard(
    two_teams: dict[str, str], live_server: LiveServer, chromium: Browser, width: int
) -> None:
    alpha = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    alpha.set_default_timeout(10_000)
    log_in(alpha, live_server.url, "alpha-ann", "/queue/")
    expect(alpha.locator(".turn-facts")).to_contain_text("alpha-1")
    expect(alpha.locator("#rubric-form legend")).to_have_text(["Quality *", "Verdict", "Errors"])
    alpha.keyboard.press("?")
    expect(alpha.locator("#shortcuts")).to_contain_text("Verdict: w wrong, p partly, r right")
    alpha.keyboard.press("Escape")
    alpha.keyboard.press("4")
    alpha.keyboard.press("p")
    alpha.evaluate(SELECT_IN_RESPONSE, [0, 5])
    alpha.keyboard.press("f")
    expect(alpha.locator(".span-list li")).to_contain_text("factual")
    fits(alpha)
    screenshot(alpha, f"rubric-alpha-{width}")
    with alpha.expect_navigation():
        alpha.keyboard.press("Enter")
    expect(alpha.locator("#queue-page")).to_be_visible()
    expect(alpha.locator("#rubric-form")).to_have_count(0)  # its one turn is rated

    beta = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    beta.set_default_timeout(10_000)
    log_in(beta, live_server.url, "beta-ann", "/queue/")
    expect(beta.locator(".turn-facts")).to_contain_text("beta-1")
    expect(beta.locator("#rubric-form legend")).to_have_text(["Solved the task *", "Why"])
    with beta.expect_navigation():
        beta.keyboard.press("Enter")  # nothing answered: refused, next to the question
    expect(beta.locator(".question-boolean .field-error")).to_contain_text("required")
    beta.keyboard.press("n")
    beta.keyboard.press("m")
    beta.keyboard.type("It never ran the tests.")
    beta.keyboard.press("Escape")
    fits(beta)
    screenshot(beta, f"rubric-beta-{width}")
    with beta.expect_navigation():
        beta.keyboard.press("Enter")

    answers = {r.project.slug: r.answers for r in Rating.objects.select_related("project")}
    assert answers == {
        "alpha": {
            "quality": 4.0,
            "verdict": "partly",
            "errors": [{"start": 0, "end": 5, "label": "factual"}],
        },
        "beta": {"solved": False, "why": "It never ran the tests."},
    }


def test_a_span_and_a_choice_by_touch_on_a_phone(
    two_teams: dict[str, str], live_server: LiveServer, chromium: Browser
) -> None:
    phone = chromium.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    ).new_page()
    phone.set_default_timeout(10_000)
    log_in(phone, live_server.url, "alpha-ann", "/queue/")
    phone.locator("label.pill", has_text="2").first.tap()
    phone.evaluate(SELECT_IN_RESPONSE, [2, 9])
    phone.locator(".span-mark", has_text="unsafe").tap()
    expect(phone.locator(".span-list li")).to_contain_text("unsafe")
    fits(phone)
    screenshot(phone, "rubric-alpha-touch-390")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Submit rating").tap()
    rating = Rating.objects.get()
    assert rating.answers == {
        "quality": 2.0,
        "errors": [{"start": 2, "end": 9, "label": "unsafe"}],
    }
