"""A manager builds a rubric on the rubric builder (a numeric, a categorical and a spans
question), watches the preview follow each change and its hotkeys work in the sample response,
sees a bad field refused beside it, saves, and an annotator then rates on it by keyboard.
Screenshots at 1280 and 390 px: var/screenshots/rubric-builder-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from core.projects.models import Project
from core.projects.services import project_add
from feedback.models import Rating
from feedback.services.rubrics import rubric_current
from learnportal import demo
from tests.browser.helpers import SELECT_IN_RESPONSE, fits, log_in, screenshot
from tests.builders import turn
from tests.factories import UserFactory
from tests.harness import token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTIONS: list[tuple[str, dict[str, str]]] = [
    ("numeric", {"key": "quality", "label": "Quality", "min": "1", "max": "5", "step": "1",
                 "hotkeys": "1 2 3 4 5", "min_label": "Poor", "max_label": "Great"}),
    ("categorical", {"key": "verdict", "label": "Verdict", "options": "wrong\npartly\nright",
                     "hotkeys": "w p r"}),
    ("spans", {"key": "errors", "label": "Errors", "options": "factual\nunsafe",
               "hotkeys": "f x", "description": "Mark what is wrong in the response."}),
]  # fmt: skip


@pytest.fixture
def alpha(db: None) -> None:
    project_add(slug="alpha", name="Alpha")
    for name, role in (("alpha-lead", "manager"), ("alpha-ann", "annotator")):
        UserFactory.create(username=name, role=role, project="alpha", password=demo.DEMO_PASSWORD)
    agent = token_actor("alpha-agent", "agent", project="alpha")
    body = {"turns": [{"correlation_id": "alpha-1", "rated_turn": turn()}]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def field(card: Locator, name: str) -> Locator:
    """The card's field `name` of its own kind (the other kinds' are hidden)."""
    return card.locator(f"[name$='-{name}'] >> visible=true")


def settled(page: Page) -> None:
    """The preview shows the draft as it stands (no change waits for it)."""
    expect(page.locator(".builder-preview")).to_have_attribute("aria-busy", "false")


def add_question(page: Page, kind: str, values: dict[str, str]) -> None:
    page.select_option("#add-kind", kind)
    page.get_by_role("button", name="Add question").click()
    card = page.locator(".rubric-card").last
    expect(field(card, "key")).to_be_focused()
    for name, value in values.items():
        field(card, name).fill(value)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_manager_builds_a_rubric_beside_its_preview_and_an_annotator_rates_on_it(
    alpha: None, live_server: LiveServer, chromium: Browser, width: int
) -> None:
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    errors: list[Any] = []
    page.on("pageerror", lambda error: errors.append(error))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    log_in(page, live_server.url, "alpha-lead", "/projects/alpha/")
    page.get_by_role("link", name="Rubric").click()
    page.wait_for_url(f"{live_server.url}/projects/alpha/rubric/")
    preview = page.frame_locator("#rubric-preview")
    expect(preview.locator("#rubric-form legend")).to_have_count(5)  # the default rubric
    screenshot(page, f"rubric-builder-default-{width}")

    while page.locator(".rubric-card").count():
        page.locator(".rubric-card [data-move=remove]").first.click()
    expect(page.locator("#builder-error")).to_contain_text("one question at least")
    for kind, values in QUESTIONS:
        add_question(page, kind, values)
    expect(preview.locator("#rubric-form legend")).to_have_text(["Quality", "Verdict", "Errors"])
    expect(page.locator("#builder-error")).to_be_hidden()

    # Reordered by keyboard, and back; the preview follows.
    verdict = page.locator(".rubric-card").nth(1)
    verdict.get_by_role("button", name="Move up verdict").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".rubric-card .card-key")).to_have_text(["verdict", "quality", "errors"])
    expect(page.get_by_role("button", name="Move up verdict")).to_be_focused()
    expect(preview.locator("#rubric-form legend")).to_have_text(["Verdict", "Quality", "Errors"])
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # Move down
    expect(page.locator(".rubric-card .card-key")).to_have_text(["quality", "verdict", "errors"])

    # A bad field is named beside it; fixed, the preview comes back.
    quality = page.locator(".rubric-card").first
    field(quality, "max").fill("0")
    expect(quality.locator(".field[data-field=max] .field-error")).to_contain_text("above min")
    field(quality, "max").fill("5")
    expect(quality.locator(".field-error")).to_have_count(0)
    settled(page)
    expect(preview.locator(".question-numeric .pill")).to_have_count(5)

    # The preview's hotkeys work in its sample response, as on the rating page.
    preview.locator("#response-text").click()
    page.keyboard.press("4")
    page.keyboard.press("p")
    expect(preview.locator("input[name=q-quality][value='4']")).to_be_checked()
    expect(preview.locator("input[name=q-verdict][value=partly]")).to_be_checked()
    frame = page.frame(url="about:srcdoc")
    assert frame is not None
    frame.evaluate(SELECT_IN_RESPONSE, [0, 5])
    page.keyboard.press("f")
    expect(preview.locator(".span-list li")).to_contain_text("factual")
    page.keyboard.press("?")
    expect(preview.locator("#shortcuts")).to_contain_text("Verdict: w wrong, p partly, r right")
    screenshot(page, f"rubric-builder-shortcuts-{width}", full_page=False)
    preview.get_by_role("button", name="Close").click()
    expect(preview.locator("#shortcuts")).to_be_hidden()
    page.keyboard.press("Enter")
    expect(preview.locator("#preview-sent")).to_contain_text("quality = 4; verdict = partly")
    fits(page)
    screenshot(page, f"rubric-builder-{width}")

    with page.expect_navigation():
        page.get_by_role("button", name="Save as version 2").click()
    expect(page.locator("main")).to_contain_text("Saved version 2 of the rubric of alpha.")
    assert rubric_current_keys() == ["quality", "verdict", "errors"]
    expect(page.locator("tr.version").first).to_contain_text("alpha-lead")
    screenshot(page, f"rubric-builder-saved-{width}")
    assert errors == []

    rater = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    rater.set_default_timeout(10_000)
    log_in(rater, live_server.url, "alpha-ann", "/queue/")
    expect(rater.locator("#rubric-form legend")).to_have_text(["Quality", "Verdict", "Errors"])
    rater.keyboard.press("2")
    rater.keyboard.press("r")
    rater.evaluate(SELECT_IN_RESPONSE, [2, 9])
    rater.keyboard.press("x")
    with rater.expect_navigation():
        rater.keyboard.press("Enter")
    assert Rating.objects.get().answers == {
        "quality": 2.0,
        "verdict": "right",
        "errors": [{"start": 2, "end": 9, "label": "unsafe"}],
    }


def rubric_current_keys() -> list[str]:
    return [q.key for q in rubric_current(Project.objects.get(slug="alpha").pk).rubric.questions]
