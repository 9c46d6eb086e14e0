"""Two annotators judge comparisons blind on /compare/, by keyboard only, at 1280 and 390 px:
a five-point preference of two (keys 1-5, then Enter), and a ranking of three reordered by
keys, by a mouse's drag and by a finger's on a phone; what is stored is what each person saw,
in their own order. Screenshots: /tmp/compare-*.png (and var/screenshots/compare-*.png)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import expect

from feedback.comparisons.models import Comparison, Judgment
from feedback.comparisons.queue import shown_order
from learnportal import demo
from tests.browser.helpers import fits, log_in, screenshot
from tests.factories import UserFactory
from tests.harness import token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, FloatRect, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ("solver-alpha", "solver-beta", "solver-gamma", "model-zeta", "model-eta", "model-theta")
LONG = "\n".join(
    f"{i}. Jupiter is the largest planet; its mass is 318 Earths." for i in range(1, 41)
)
UNBROKEN = "x" * 300  # a word no line can hold
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def inline(response: str, component: str, model: str) -> dict[str, str]:
    return {"response": response, "component_name": component, "model": model}


def pair(key: str, priority: int) -> dict[str, Any]:
    return {
        "comparison_id": key,
        "prompt": f"{key}: Which planet is largest? Say why.",
        "priority": priority,
        "candidates": [
            inline(f"{key} first: Jupiter.\n\n{LONG}", "solver-alpha", "model-zeta"),
            inline(f"{key} second: Saturn, I think. {UNBROKEN}", "solver-beta", "model-eta"),
        ],
    }


def triple(key: str) -> dict[str, Any]:
    return {
        "comparison_id": key,
        "prompt": "Name the largest planet.",
        "candidates": [
            inline(f"{key} one: Jupiter.", "solver-alpha", "model-zeta"),
            inline(f"{key} two: Saturn.\n{LONG}", "solver-beta", "model-eta"),
            inline(f"{key} three: Jupiter, by far: 318 Earths.", "solver-gamma", "model-theta"),
        ],
    }


def submit(*comparisons: dict[str, Any]) -> list[int]:
    agent = token_actor("arena", "agent")
    sent = agent.rest("post", "/api/comparisons/", {"comparisons": list(comparisons)})
    assert sent.status_code == 201, sent.content
    return [c["id"] for c in sent.json()["comparisons"]]


def order_for(comparison: int, who: str) -> list[str]:
    ids = Comparison.objects.get(pk=comparison).candidates.values_list("candidate_id", flat=True)
    return shown_order(comparison, list(ids), who)


def responses_for(comparison: int, who: str) -> list[str]:
    by_id = dict(
        Comparison.objects.get(pk=comparison).candidates.values_list("candidate_id", "response")
    )
    return [by_id[c] for c in order_for(comparison, who)]


def person(
    chromium: Browser, live_server: LiveServer, name: str, width: int, *, touch: bool = False
) -> Page:
    """`name`, logged in on /compare/ in a window `width` px wide (a phone's, with `touch`);
    the page records what the Content-Security-Policy blocks."""
    UserFactory.create(username=name, role="annotator", password=demo.DEMO_PASSWORD)
    height = 844 if width < 800 else 800
    context = chromium.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, live_server.url, name, "/compare/")
    return page


def blind_and_clean(page: Page) -> None:
    """Nothing on the page names a component or a model, nothing is wider than the window,
    and the policy blocked nothing."""
    text = page.locator("body").inner_text()
    assert not [name for name in NAMES if name in text]
    assert not [name for name in NAMES if name in page.content()]
    fits(page)
    assert page.evaluate("window.__cspViolations") == []


def shot(page: Page, name: str) -> None:
    """A full-page screenshot in var/screenshots, as the others, and a copy in /tmp."""
    screenshot(page, name)
    shutil.copy(Path(django_settings.VAR_DIR) / "screenshots" / f"{name}.png", f"/tmp/{name}.png")


def ranks_of_key(key: int) -> list[int]:
    """The ranks (in the order shown) that key 1-5 stands for: A much better ... B much better."""
    preference = key - 3
    return [0, 0] if preference == 0 else ([0, 1] if preference < 0 else [1, 0])


def box(page: Page, selector: str) -> FloatRect:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


@pytest.mark.parametrize("width", [1280, 390])
def test_two_annotators_judge_pairs_by_keyboard_blind_and_each_in_their_own_order(
    live_server: LiveServer, chromium: Browser, width: int, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    pks = submit(pair("c-1", priority=2), pair("c-2", priority=1))
    keys = {"aria": [1, 4], "ben": [5, 3]}
    for who, pressed in keys.items():
        page = person(chromium, live_server, who, width)
        for pk, key in zip(pks, pressed, strict=True):
            shown = responses_for(pk, who)
            expect(page.locator(".candidate-text")).to_have_text(shown)
            expect(page.locator(".candidate-title")).to_have_text(["A Response A", "B Response B"])
            expect(page.locator(".preference-scale kbd").first).to_be_visible()
            a, b = box(page, "#candidate-A-text"), box(page, "#candidate-B-text")
            if width >= 800:  # side by side: A | B
                assert a["x"] + a["width"] <= b["x"] and abs(a["y"] - b["y"]) < 1
            else:  # A above B
                assert a["y"] + a["height"] <= b["y"]
            scrolls = page.evaluate(
                "(el) => [el.scrollHeight > el.clientHeight, getComputedStyle(el).whiteSpace]",
                page.locator("#candidate-A-text").element_handle()
                if "first: Jupiter" in shown[0]
                else page.locator("#candidate-B-text").element_handle(),
            )
            assert scrolls == [True, "pre-wrap"]  # the long one scrolls, wrapped as written
            blind_and_clean(page)
            if who == "aria" and pk == pks[0]:
                shot(page, f"compare-two-{width}")
            page.keyboard.press(str(key))
            expect(page.locator("input[name=preference]").nth(key - 1)).to_be_checked()
            expect(page.locator("#key-status")).to_contain_text("Chosen:")
            if who == "aria" and pk == pks[0]:
                shot(page, f"compare-two-chosen-{width}")
            with page.expect_navigation():
                page.keyboard.press("Enter")
            stored = Judgment.objects.get(comparison_id=pk, annotator=who)
            assert stored.shown == order_for(pk, who)
            assert stored.ranks == ranks_of_key(key)
            assert stored.preference == key - 3
        expect(page.locator("#empty-title")).to_have_text("Nothing left for you to compare")
        blind_and_clean(page)
        if who == "ben":
            shot(page, f"compare-empty-{width}")
    assert Judgment.objects.count() == 4
    assert not Comparison.objects.filter(judgments_needed__gt=0).exists()


def on_screen(page: Page) -> list[str]:
    """The ranking as the page shows it: the candidates' letters, top (best) first."""
    return [str(label) for label in page.locator(".rank-item").evaluate_all(
        "(items) => items.map((item) => item.dataset.label)"
    )]  # fmt: skip


def stored_as_shown(page: Page, comparison: int, who: str) -> None:
    """The stored ranking is the one on screen when it was submitted."""
    letters = on_screen(page)
    shown = order_for(comparison, who)
    expected = [shown["ABC".index(letter)] for letter in letters]
    assert page.locator("#ranking-field").input_value() == ",".join(expected)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    stored = Judgment.objects.get(comparison_id=comparison, annotator=who)
    assert stored.shown == shown
    assert [stored.shown[stored.ranks.index(place)] for place in range(3)] == expected


@pytest.mark.parametrize("width", [1280, 390])
def test_a_ranking_of_three_is_reordered_by_keyboard_and_stored_as_shown(
    live_server: LiveServer, chromium: Browser, width: int
) -> None:
    (pk,) = submit(triple("t-1"))
    page = person(chromium, live_server, "aria", width)
    expect(page.locator(".candidate-text")).to_have_text(responses_for(pk, "aria"))
    expect(page.locator("#ranking-help-js")).to_be_visible()
    expect(page.locator("#ranking-help")).to_be_hidden()
    expect(page.locator(".rank-select").first).to_be_hidden()
    assert on_screen(page) == ["A", "B", "C"]
    blind_and_clean(page)
    shot(page, f"compare-three-{width}")
    page.locator(".rank-item[data-label=A]").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.locator(".rank-item[data-label=C]")).to_be_focused()
    page.keyboard.press("Alt+ArrowUp")
    page.keyboard.press("Alt+ArrowUp")
    assert on_screen(page) == ["C", "A", "B"]
    expect(page.locator(".rank-item[data-label=C]")).to_be_focused()
    expect(page.locator("#key-status")).to_have_text("Response C is at place 1 of 3.")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Alt+ArrowDown")
    assert on_screen(page) == ["C", "B", "A"]
    page.keyboard.press("1")  # A, still focused, to the top
    assert on_screen(page) == ["A", "C", "B"]
    expect(page.locator(".rank-place")).to_have_text(["1", "2", "3"])
    blind_and_clean(page)
    shot(page, f"compare-three-moved-{width}")
    stored_as_shown(page, pk, "aria")


def test_a_ranking_left_as_shown_is_sent_only_on_a_second_enter(
    live_server: LiveServer, chromium: Browser
) -> None:
    (pk,) = submit(triple("t-1"))
    page = person(chromium, live_server, "aria", 1280)
    page.locator(".rank-item[data-label=A]").focus()
    page.keyboard.press("Enter")  # on a row, not a button: the page's Enter
    expect(page.locator("#key-status")).to_contain_text("Put the responses in your order first")
    assert not Judgment.objects.exists()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert Judgment.objects.get(comparison_id=pk).ranks == [0, 1, 2]  # as shown, kept on purpose


def test_a_ranking_of_three_is_reordered_by_a_mouse_drag(
    live_server: LiveServer, chromium: Browser
) -> None:
    (pk,) = submit(triple("t-1"))
    page = person(chromium, live_server, "aria", 1280)
    page.locator("#ranking-list").scroll_into_view_if_needed()
    last, first = box(page, ".rank-item[data-label=C]"), box(page, ".rank-item[data-label=A]")
    page.mouse.move(last["x"] + last["width"] / 2, last["y"] + last["height"] / 2)
    page.mouse.down()
    page.mouse.move(first["x"] + first["width"] / 2, first["y"] + 4, steps=12)
    expect(page.locator(".rank-item.dragging")).to_have_count(1)
    page.mouse.up()
    assert on_screen(page) == ["C", "A", "B"]
    expect(page.locator(".rank-item.dragging")).to_have_count(0)
    expect(page.locator(".rank-item[data-label=C]")).to_be_focused()
    stored_as_shown(page, pk, "aria")


def finger_drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger put down at `start`, moved to `end` in small steps, and lifted: touch events
    as a phone's screen sends them (Playwright's own `tap` has no drag)."""
    cdp = page.context.new_cdp_session(page)
    (x, y), (to_x, to_y) = start, end
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 11):
        at = {"x": x + (to_x - x) * step / 10, "y": y + (to_y - y) * step / 10}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [at]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_a_ranking_of_three_is_reordered_by_a_finger_on_a_phone(
    live_server: LiveServer, chromium: Browser
) -> None:
    (pk,) = submit(triple("t-1"))
    page = person(chromium, live_server, "aria", 390, touch=True)
    page.locator(".rank-item[data-label=A] .rank-handle").scroll_into_view_if_needed()
    handle = box(page, ".rank-item[data-label=A] .rank-handle")
    bottom = box(page, ".rank-item[data-label=C]")
    x, y = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    finger_drag(page, (x, y), (x, bottom["y"] + bottom["height"] - 2))  # past C's middle
    assert on_screen(page) == ["B", "C", "A"]
    blind_and_clean(page)
    shot(page, "compare-three-touch-390")
    # Chromium takes a tap within its double-tap time of the drag's end for a second touch of
    # that gesture, and sends no click: a finger takes longer to reach the button anyway.
    page.wait_for_timeout(400)
    with page.expect_navigation():
        page.get_by_role("button", name="Submit judgment").tap()
    stored = Judgment.objects.get(comparison_id=pk, annotator="aria")
    shown = order_for(pk, "aria")
    assert stored.ranks == [2, 0, 1]  # A last, B first, C second
    assert stored.shown == shown


def test_without_script_a_pair_is_judged_by_its_radios_and_a_ranking_by_its_selects(
    live_server: LiveServer, chromium: Browser
) -> None:
    pair_pk, triple_pk = submit(pair("c-1", priority=1), triple("t-1"))
    UserFactory.create(username="noscript", role="annotator", password=demo.DEMO_PASSWORD)
    page = chromium.new_context(java_script_enabled=False).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "noscript", "/compare/")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit judgment").click()  # nothing chosen
    expect(page.locator("#judge-error")).to_contain_text("Your judgment was not stored")
    expect(page.locator("#judge-error")).to_contain_text("Choose which response is better")
    shot(page, "compare-error-1280")
    assert not Judgment.objects.exists()
    page.locator("label.pref-4").click()
    with page.expect_navigation():
        page.get_by_role("button", name="Submit judgment").click()
    assert Judgment.objects.get(comparison_id=pair_pk).ranks == [1, 0]
    expect(page.locator(".rank-select").first).to_be_visible()
    expect(page.locator("#ranking-help")).to_be_visible()
    shown = order_for(triple_pk, "noscript")
    for candidate, rank in zip(shown, ["3", "1", "2"], strict=True):
        page.locator(f"select[name=rank-{candidate}]").select_option(rank)
    shot(page, "compare-three-noscript-1280")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit judgment").click()
    assert Judgment.objects.get(comparison_id=triple_pk).ranks == [2, 0, 1]
