"""The rating workspace (/queue/) in headless Chromium: keyboard first, blind, one lease each.

Screenshots of the queue at 1280 and 390 px: var/screenshots/queue-*.png.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from feedback.models import Feedback, Lease, Retraction, Skip, Turn
from learnportal import demo
from tests.browser.helpers import SELECT_IN_RESPONSE, log_in, screenshot
from tests.factories import TurnFactory, UserFactory

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": 1280, "phone": 390}

# Where each character of the response is on screen: a real mouse drag selects between them.
CHARACTER_BOX = """(offset) => {
  const text = document.getElementById("response-text").firstChild;
  const range = document.createRange();
  range.setStart(text, offset);
  range.setEnd(text, offset + 1);
  const box = range.getBoundingClientRect();
  return {x: box.left, y: box.top + box.height / 2, width: box.width};
}"""


def _person(browser: Browser, base_url: str, username: str, width: int = 1280) -> Page:
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    log_in(page, base_url, username, "/queue/")
    return page


def _second_annotator() -> None:
    UserFactory.create(username="annotator2", password=demo.DEMO_PASSWORD)


def _ready(page: Page) -> None:
    """Wait for rate.js: it shows the cheat-sheet's button once it listens to the keys."""
    expect(page.locator(".shortcuts-open")).to_be_visible()


def _leased(page: Page) -> Turn:
    """The turn the queue page shows, once its keys work."""
    _ready(page)
    return Turn.objects.get(pk=int(page.locator("#rating-form input[name=turn]").input_value()))


def _press(page: Page, key: str) -> None:
    """A key that sends a form: wait for the page it leads to."""
    with page.expect_navigation():
        page.keyboard.press(key)
    _ready(page)


def _word_end(text: str, at: int) -> int:
    """Where Ctrl+Shift+Right takes the caret: past any spaces, then past the word."""
    while at < len(text) and text[at].isspace():
        at += 1
    while at < len(text) and not text[at].isspace():
        at += 1
    return at


def _focused(page: Page) -> str:
    return str(page.evaluate("document.activeElement.id || document.activeElement.name"))


def _mine(turn: Turn, username: str = "annotator") -> Feedback:
    return Feedback.objects.get(correlation_id=turn.correlation_id, annotator_id=username)


def test_an_annotator_rates_three_turns_by_keyboard_alone_one_with_a_span(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    page = _person(chromium, live_server.url, "annotator")
    first = _leased(page)
    assert _focused(page) == "id_score"  # the rating, not seven Tabs away
    screenshot(page, "queue-turn-desktop")

    page.keyboard.press("1")  # positive; the score follows it until set
    expect(page.locator("#score-value")).to_have_text("1.0")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#score-value")).to_have_text("0.8")
    _press(page, "Enter")
    second = _leased(page)
    assert second != first
    rating = _mine(first)
    assert (rating.polarity, rating.score, rating.source) == ("positive", 0.8, "human")
    expect(page.locator("#undo-note")).to_contain_text(first.correlation_id)

    page.keyboard.press("2")  # negative: -1.0
    page.keyboard.press("Shift+ArrowRight")  # up by 0.5
    _press(page, "Enter")
    third = _leased(page)
    assert third not in (first, second)
    assert (_mine(second).polarity, _mine(second).score) == ("negative", -0.5)

    # The span, by keyboard: R focuses the response, Shift+arrows select from the caret.
    page.keyboard.press("4")
    page.keyboard.press("r")
    assert _focused(page) == "response-text"
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Control+Shift+ArrowRight")  # a word
    page.keyboard.press("Shift+ArrowRight")
    response = third.response
    start = 5
    end = _word_end(response, start) + 1
    expect(page.locator("#span-label")).to_contain_text(f"characters {start}\u2013{end}")
    expect(page.locator("#response-text mark")).to_have_text(response[start:end])
    screenshot(page, "queue-span-desktop")
    page.keyboard.press("c")
    page.keyboard.type("the figure, sourced ")
    page.keyboard.press("Escape")  # leave the field: shortcuts work again
    _press(page, "Enter")
    expect(page.locator(".empty-queue")).to_be_visible()
    corrected = _mine(third)
    assert corrected.polarity == "corrective"
    assert (corrected.span_start, corrected.span_end) == (start, end)
    assert corrected.correction == "the figure, sourced "
    expect(page.locator(".progress")).to_contain_text("6 rated today")  # the demo's 3, and 3
    expect(page.locator(".progress")).to_contain_text("0 left for you")
    screenshot(page, "queue-empty-desktop")
    page.set_viewport_size({"width": WIDTHS["phone"], "height": 900})
    screenshot(page, "queue-empty-phone")
    # The trl export holds that correction as a pair, the span spliced into the response.
    reviewer = _person(chromium, live_server.url, "reviewer")
    export = reviewer.request.get(
        f"{live_server.url}/api/exports/trl.jsonl?correlation_id={third.correlation_id}"
    )
    assert export.ok
    pairs = [json.loads(line) for line in export.text().splitlines()]
    spliced = response[:start] + "the figure, sourced " + response[end:]
    assert {"prompt": third.prompt, "chosen": spliced, "rejected": response} in pairs


def test_a_span_chosen_with_the_mouse_is_highlighted_and_stored(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    page = _person(chromium, live_server.url, "annotator")
    turn = _leased(page)
    start, end = 5, 12
    first = page.evaluate(CHARACTER_BOX, start)
    last = page.evaluate(CHARACTER_BOX, end - 1)
    page.mouse.move(first["x"] + 1, first["y"])
    page.mouse.down()
    page.mouse.move(last["x"] + last["width"] - 1, last["y"], steps=5)
    page.mouse.up()
    expect(page.locator("#response-text mark")).to_have_text(turn.response[start:end])
    assert page.locator("input[name=span_start]").input_value() == str(start)
    assert page.locator("input[name=span_end]").input_value() == str(end)
    page.keyboard.press("4")
    page.keyboard.press("c")
    page.keyboard.type("a better phrase")
    _press(page, "Control+Enter")  # submits from inside a text field too
    assert _leased(page) != turn
    rating = _mine(turn)
    assert (rating.span_start, rating.span_end) == (start, end)
    assert rating.correction == "a better phrase"


def test_u_undoes_the_last_rating_and_gives_the_turn_back(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    page = _person(chromium, live_server.url, "annotator")
    turn = _leased(page)
    page.keyboard.press("3")
    _press(page, "Enter")
    assert _leased(page) != turn
    rating = _mine(turn)
    _press(page, "u")
    expect(page.locator(".message-info")).to_contain_text(f"{turn.correlation_id} is undone")
    assert _leased(page) == turn  # to rate again
    assert Retraction.objects.filter(feedback=rating).exists()
    expect(page.locator("#undo-note")).to_have_count(0)  # nothing newer is undoable
    page.keyboard.press("u")
    expect(page.locator("#key-status")).to_contain_text("Nothing to undo")


def test_s_skips_the_turn_for_good(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    page = _person(chromium, live_server.url, "annotator")
    turn = _leased(page)
    _press(page, "s")
    following = _leased(page)
    assert following != turn
    assert Skip.objects.filter(turn=turn, username="annotator").exists()
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()
    page.reload()
    assert _leased(page) == following


def test_question_mark_opens_the_cheat_sheet(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    for name, width in WIDTHS.items():
        page = _person(chromium, live_server.url, "annotator", width)
        if name == "phone":
            screenshot(page, "queue-turn-phone")
        dialog = page.locator("#shortcuts")
        expect(dialog).to_be_hidden()
        page.keyboard.press("?")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text("Skip this turn")
        page.keyboard.press("1")  # inside the dialog, keys do nothing to the rating
        assert page.locator("input[name=polarity]:checked").count() == 0
        screenshot(page, f"queue-shortcuts-{name}", full_page=False)  # the backdrop is fixed
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        assert _focused(page) == "id_score"  # back where it was
        page.click(".shortcuts-open")  # the same list, for the mouse
        expect(dialog).to_be_visible()
        page.context.close()


def test_shortcuts_do_not_fire_while_typing_in_the_comment(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    page = _person(chromium, live_server.url, "annotator")
    turn = _leased(page)
    page.keyboard.press("m")
    assert _focused(page) == "id_comment"
    typed = "1 2 3 4 s u r c m ? ok"
    page.keyboard.type(typed)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")  # a new line, not a submit
    assert page.locator("textarea[name=comment]").input_value() == typed[:-1] + "\n" + typed[-1]
    assert page.locator("input[name=polarity]:checked").count() == 0
    expect(page.locator("#shortcuts")).to_be_hidden()
    assert _leased(page) == turn and not Skip.objects.exists()
    assert page.locator("#score-value").inner_text() == "0.0"

    # Enter with no polarity: the protocol's refusal, next to the polarity, read out with the
    # score, where the focus is as before the error (the keys mean what they meant).
    page.keyboard.press("Escape")
    _press(page, "Enter")
    refusal = page.locator("[data-field=polarity]")
    expect(refusal).to_have_text("Required: fill this in, or choose one.")
    assert _focused(page) == "id_score"
    described = page.locator("#id_score").get_attribute("aria-describedby") or ""
    assert refusal.get_attribute("id") in described.split()
    assert page.locator("textarea[name=comment]").input_value().startswith("1 2 3 4")
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()
    screenshot(page, "queue-error-desktop")
    page.set_viewport_size({"width": WIDTHS["phone"], "height": 900})
    screenshot(page, "queue-error-phone")


def test_a_corrective_rating_without_a_correction_is_refused_next_to_the_correction(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    page = _person(chromium, live_server.url, "annotator")
    turn = _leased(page)
    page.keyboard.press("4")
    _press(page, "Enter")
    expect(page.locator("[data-field=correction]")).to_have_text(
        "corrective feedback must include a correction"
    )
    assert _focused(page) == "id_score"  # as before the error: C reaches the correction
    assert _leased(page) == turn
    page.keyboard.press("c")
    page.keyboard.type("Name the source.")
    _press(page, "Control+Enter")
    assert _leased(page) != turn
    assert _mine(turn).correction == "Name the source."


def test_two_annotators_never_hold_the_same_turn(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    """Both ask at once and rate at once, round after round, until one has nothing left."""
    _more_turns(8)
    _second_annotator()
    people = [_person(chromium, live_server.url, name) for name in ("annotator", "annotator2")]
    rounds = 0
    while all(page.locator("#rating-form").count() for page in people):
        mine, theirs = (_leased(page) for page in people)
        assert mine != theirs
        rounds += 1
        for page in people:
            page.keyboard.press("1")
        with people[0].expect_navigation(), people[1].expect_navigation():
            for page in people:
                page.keyboard.press("Enter")  # both forms on their way before either returns
        with people[0].expect_navigation(), people[1].expect_navigation():
            for page in people:
                page.evaluate("location.reload()")  # and both ask again at once
    assert rounds >= 4  # 3 demo turns and 8 more: both were leased several
    rated = Feedback.objects.filter(source="human", annotator_id__in=["annotator", "annotator2"])
    per_turn = list(rated.values_list("correlation_id", flat=True))
    assert len(per_turn) == len(set(per_turn))  # one rating each, as N = 1 asks
    assert Lease.objects.values("turn").distinct().count() == Lease.objects.count()


def _more_turns(count: int) -> None:
    for i in range(count):
        TurnFactory.create(
            by=demo.DEMO_AGENT,
            correlation_id=f"more-{i}",
            session_id="s-more",
            component_name="summarize",
            rated_turn__prompt=f"Prompt {i}",
            rated_turn__response=f"Response {i}.",
            rated_turn__model="m-v1",
        )


@pytest.fixture
def two_ratings_each(settings: Any, transactional_db: None) -> None:
    """The demo, with two people's ratings needed on every turn."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    demo.seed_demo()


def test_an_annotator_never_sees_another_persons_rating_until_they_rated(
    two_ratings_each: None, live_server: LiveServer, chromium: Browser
) -> None:
    _second_annotator()
    rated_by_annotator = set(
        Feedback.objects.filter(annotator_id="annotator").values_list("correlation_id", flat=True)
    )
    other = _person(chromium, live_server.url, "annotator2")
    while (turn := _leased(other)).correlation_id in rated_by_annotator:
        _press(other, "s")  # one that annotator can still be offered
    other.keyboard.press("1")
    other.keyboard.press("m")
    other.keyboard.type("SECRET-OPINION of annotator2")
    _press(other, "Control+Enter")
    assert _mine(turn, "annotator2").comment.startswith("SECRET-OPINION")

    page = _person(chromium, live_server.url, "annotator")
    while _leased(page) != turn:  # the queue offers it: it needs a second rating
        _press(page, "s")
    expect(page.locator("body")).not_to_contain_text("SECRET-OPINION")
    expect(page.locator(".blind-note")).to_be_visible()
    page.goto(f"{live_server.url}/turns/{turn.pk}/")
    expect(page.locator("body")).not_to_contain_text("SECRET-OPINION")
    expect(page.locator(".blind-note")).to_be_visible()

    page.keyboard.press("3")
    with page.expect_navigation():  # to the turn's reveal: no form there, so no _ready
        page.keyboard.press("Enter")
    expect(page.locator(".ratings")).to_contain_text("SECRET-OPINION")  # rated: now it may
    page.goto(f"{live_server.url}/turns/{turn.pk}/")
    expect(page.locator(".ratings")).to_contain_text("SECRET-OPINION")

    reviewer = _person(chromium, live_server.url, "reviewer")
    reviewer.goto(f"{live_server.url}/turns/{turn.pk}/")
    expect(reviewer.locator(".ratings")).to_contain_text("SECRET-OPINION")


# The same keys, pressed on a fresh form and on one a refused submit (Enter with no polarity)
# sent back: each sequence, and the polarity and score it stores.
SAME_KEYS = [
    (["1", "Enter"], ("positive", 1.0)),
    (["ArrowRight", "ArrowRight", "2", "Enter"], ("negative", 0.2)),  # a score set stays set
]


def test_the_same_keys_store_the_same_rating_before_and_after_a_refused_submit(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    _more_turns(2)
    page = _person(chromium, live_server.url, "annotator")
    for keys, meant in SAME_KEYS:
        stored = []
        for refused_first in (False, True):
            turn = _leased(page)
            if refused_first:
                _press(page, "Enter")
                expect(page.locator("[data-field=polarity]")).to_be_visible()
                assert _leased(page) == turn
            for key in keys[:-1]:
                page.keyboard.press(key)
            _press(page, keys[-1])
            assert _leased(page) != turn
            rating = _mine(turn)
            stored.append((rating.polarity, rating.score))
        assert stored == [meant, meant], keys


def test_a_lease_counts_down_warns_before_it_ends_and_a_late_submit_is_told_it_moved_on(
    seeded: None, live_server: LiveServer, chromium: Browser, settings: Any
) -> None:
    _second_annotator()
    settings.LEARNPORTAL_LEASE_SECONDS = 4
    page = _person(chromium, live_server.url, "annotator")
    turn = _leased(page)
    clock = page.locator("#lease-clock")
    expect(clock.locator(".lease-left")).to_have_text(re.compile(r"^0:0[1-4]$"))
    expect(clock.locator(".lease-note")).to_contain_text("Your hold ends soon")  # its last minute
    screenshot(page, "queue-lease-ending-desktop")
    expect(clock.locator(".lease-note")).to_contain_text("has ended", timeout=8_000)
    expect(clock.locator(".lease-left")).to_have_text("0:00")

    settings.LEARNPORTAL_LEASE_SECONDS = 600
    other = _person(chromium, live_server.url, "annotator2")
    assert _leased(other) == turn  # the lease moved on
    page.keyboard.press("1")
    _press(page, "Enter")
    expect(page.locator(".message-error")).to_contain_text(
        f"Your hold on {turn.correlation_id} ended before you submitted"
    )
    assert _leased(page) != turn
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()
    screenshot(page, "queue-late-refused-desktop")


def test_a_span_chosen_by_touch_on_a_phone_is_stored_as_the_correction_span(
    seeded: None, live_server: LiveServer, chromium: Browser
) -> None:
    phone = chromium.new_context(
        viewport={"width": WIDTHS["phone"], "height": 844}, has_touch=True, is_mobile=True
    )
    page = phone.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "annotator", "/queue/")
    turn = _leased(page)
    use = page.locator("#span-use")
    expect(use).to_be_hidden()
    start, end = 5, 12
    page.evaluate(SELECT_IN_RESPONSE, [start, end])
    expect(use).to_be_visible()
    screenshot(page, "queue-touch-selection-phone", full_page=False)
    use.tap()
    expect(page.locator("#response-text mark")).to_have_text(turn.response[start:end])
    expect(use).to_be_hidden()
    page.locator("label.pill-corrective").tap()
    page.locator("textarea[name=correction]").fill("a better phrase")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit rating").tap()
    rating = _mine(turn)
    assert (rating.polarity, rating.span_start, rating.span_end) == ("corrective", start, end)
    assert rating.correction == "a better phrase"
    page.goto(f"{live_server.url}/turns/{turn.pk}/")  # the rating page, at both widths
    _ready(page)
    screenshot(page, "rate-page-phone")
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})
    screenshot(page, "rate-page-desktop")
