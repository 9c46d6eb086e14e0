"""A reviewer reviews people's ratings on /review/ in headless Chromium: by keyboard at 1280 px
(A then Enter accepts; R, a reason, Enter rejects; a rejection without a reason is refused
beside its field; E, an answer, Enter amends, a bad answer refused beside its question), by
touch on a 390 px phone (tap Reject, type, tap Submit; tap Amend, an answer, Submit), and
without script (type a reason, press Reject; open the amendment, answer, press Amend). The list
of reviews, /reviews/, fits a phone. Nothing is wider than the window. Screenshots:
/tmp/review-*.png (and var/screenshots/review-rating-*.png)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import expect

from core.accounts.models import User
from feedback.models import Feedback, Rating
from feedback.reviews.models import Amendment, RatingReview
from learnportal import demo
from tests.browser.helpers import SELECT_IN_RESPONSE, fits, log_in, screenshot
from tests.factories import UserFactory
from tests.harness import human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG = "\n".join(
    f"{i}. Jupiter is the largest planet; its mass is 318 Earths." for i in range(1, 31)
)
UNBROKEN = "x" * 300  # a word no line can hold
REASON = "Scored a wrong answer as right."
SCORES = {"correctness": 0.75, "helpfulness": -0.25}
RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Overall quality of the answer", "min": 1,
     "max": 5, "step": 1},
    {"kind": "categorical", "key": "tags", "label": "Tags", "options": ["terse", "wrong", "rude"],
     "multiple": True},
    {"kind": "boolean", "key": "safe", "label": "Safe to show"},
    {"kind": "text", "key": "notes", "label": "Notes"},
]  # fmt: skip
ANSWERS = {
    "quality": 2,
    "tags": ["wrong", "terse"],
    "safe": True,
    "notes": f"Says Saturn. {UNBROKEN}",
}
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def rated_turns(*keys: str, answers: dict[str, Any] | None = None) -> list[str]:
    """Turns `keys` queued and rated by an annotator (`answers`, else the default rubric's two
    scores), oldest first: each rating's first feedback_id (the one the page names it by)."""
    agent = token_actor("agent-r", "agent")
    turns = [
        {
            "correlation_id": key,
            "rated_turn": {
                "prompt": f"{key}: Which planet is largest? Say why. {UNBROKEN}",
                "response": f"{key}: Saturn.\n\n{LONG}",
                "model": "agent-v1",
            },
        }
        for key in keys
    ]
    assert agent.rest("post", "/api/turns/", {"turns": turns}).status_code == 201
    person = human_actor("annie", "annotator")
    firsts = []
    for key in keys:
        body = {
            "turn": key,
            "answers": answers or SCORES,
            "comment": f"Fine, I think. {UNBROKEN}",
            "correction": "Jupiter.",
            "correction_span": [len(key) + 2, len(key) + 9],
        }
        sent = person.rest("post", "/api/ratings/", body)
        assert sent.status_code == 201, sent.content
        rating_id = sent.json()["rating_id"]
        rows = Feedback.objects.filter(feedback_id__startswith=rating_id).order_by("id")
        firsts.append(rows.values_list("feedback_id", flat=True)[0])
    return firsts


def person(
    chromium: Browser, live_server: LiveServer, name: str, width: int, *, touch: bool = False
) -> Page:
    """Reviewer `name`, logged in on /review/ in a window `width` px wide (a phone's, with
    `touch`); the page records what the Content-Security-Policy blocks."""
    UserFactory.create(username=name, role="reviewer", password=demo.DEMO_PASSWORD)
    height = 844 if width < 800 else 800
    context = chromium.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, live_server.url, name, "/review/")
    return page


def clean(page: Page) -> None:
    """Nothing wider than the window, and nothing the policy blocked."""
    fits(page)
    assert page.evaluate("window.__cspViolations") == []


def shot(page: Page, name: str) -> None:
    """A full-page screenshot in var/screenshots, as the others, and a copy in /tmp."""
    screenshot(page, f"review-rating-{name}")
    folder = Path(django_settings.VAR_DIR) / "screenshots"
    shutil.copy(folder / f"review-rating-{name}.png", f"/tmp/review-{name}.png")


def shot_of(page: Page, selector: str, name: str) -> None:
    """One part of the page, at its size (a full page of a phone is too tall to read)."""
    page.locator(selector).screenshot(path=f"/tmp/review-{name}.png")


def holds(page: Page, feedback_id: str) -> None:
    expect(page.locator("#review-form input[name=feedback_id]")).to_have_value(feedback_id)


def decided(feedback_id: str) -> tuple[str, str]:
    review = RatingReview.objects.get(feedback__feedback_id=feedback_id)
    return review.decision, review.reason


def amendment_answers(feedback_id: str) -> dict[str, Any]:
    """The answers of the reviewer's rating that took the place of rating `feedback_id`."""
    review = RatingReview.objects.get(feedback__feedback_id=feedback_id)
    made = Amendment.objects.filter(review_id=review.review_id).first()
    assert made is not None, "no amendment stored"
    rating_id = made.feedback.feedback_id.partition(".")[0]
    answers: dict[str, Any] = Rating.objects.get(rating_id=rating_id).answers
    return answers


def test_a_reviewer_accepts_one_rating_and_rejects_the_next_by_keyboard(
    live_server: LiveServer, chromium: Browser
) -> None:
    first, second = rated_turns("t-1", "t-2")
    page = person(chromium, live_server, "rita", 1280)
    holds(page, first)
    expect(page.locator("#review-prompt")).to_contain_text("t-1: Which planet is largest?")
    expect(page.locator("#review-response")).to_contain_text("t-1: Saturn.")
    expect(page.locator(".review-annotator")).to_have_text("annie")
    expect(page.locator(".review-scores tbody th")).to_have_text(["Correctness", "Helpfulness"])
    expect(page.locator(".review-score")).to_have_text(["0.75", "-0.25"])
    expect(page.locator("#review-submit")).to_be_visible()  # the script's: a choice, then Enter
    turn, side = (page.locator(s).bounding_box() for s in (".review-turn", ".review-side"))
    assert turn is not None and side is not None
    assert turn["x"] + turn["width"] <= side["x"] and abs(turn["y"] - side["y"]) < 1
    clean(page)
    shot(page, "1280")

    page.keyboard.press("Enter")  # nothing chosen: nothing sent
    expect(page.locator("#key-status")).to_have_text(
        "Choose Accept (A), Reject (R) or Amend (E) first."
    )
    expect(page.locator("#review-amend")).to_be_hidden()  # until Amend is chosen
    assert not RatingReview.objects.exists()
    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_be_visible()
    shot(page, "shortcuts-1280")
    page.keyboard.press("Escape")
    expect(page.locator("#shortcuts")).to_be_hidden()
    # The dialog gives the focus back as it closes (its close event): keys go to the page again.
    expect(page.locator("#shortcuts-close")).not_to_be_focused()
    page.keyboard.press("a")
    expect(page.locator("#decision-accept")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#decision-reject")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#key-status")).to_contain_text("Accept chosen")
    shot(page, "accept-chosen-1280")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert decided(first) == ("accepted", "")
    expect(page.locator(".messages")).to_contain_text("Accepted: the rating stays counted.")
    holds(page, second)

    page.keyboard.press("r")
    expect(page.locator("#reason")).to_be_focused()
    expect(page.locator("#reason")).to_have_value("")  # the key chose; it typed nothing
    with page.expect_navigation():
        page.keyboard.press("Enter")  # a rejection with no reason: refused, beside the field
    expect(page.locator("#reason-error")).to_have_text("A rejection says why.")
    expect(page.locator("#reason")).to_be_focused()
    expect(page.locator("#decision-reject")).to_have_attribute("aria-pressed", "true")
    holds(page, second)
    assert not RatingReview.objects.filter(feedback__feedback_id=second).exists()
    clean(page)
    shot(page, "refused-1280")
    page.keyboard.type(REASON)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert decided(second) == ("rejected", REASON)
    expect(page.locator(".messages")).to_contain_text("Rejected: the rating no longer counts")
    # The rejected rating has left the training data; the accepted one stays.
    reader = human_actor("exporter", "admin")
    exported = {line["rating_id"] for line in reader.exported("answers")}
    assert exported == {first.partition(".")[0]}
    expect(page.locator("#empty-title")).to_have_text("Nothing left for you to review")
    clean(page)
    shot(page, "empty-1280")


def test_a_reviewer_on_a_phone_taps_reject_types_why_and_taps_submit(
    live_server: LiveServer, chromium: Browser
) -> None:
    lead = human_actor("lead", "manager")
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC}).status_code == 200
    )
    (first,) = rated_turns("t-1", answers=ANSWERS)
    page = person(chromium, live_server, "rita", 390, touch=True)
    holds(page, first)
    expect(page.locator(".review-annotator")).to_have_text("annie")
    expect(page.locator(".review-answer dt")).to_have_text(
        ["Overall quality of the answer", "Tags", "Safe to show", "Notes"]
    )
    expect(page.locator(".review-correction")).to_have_text("Jupiter.")
    expect(page.locator(".review-replaces")).to_contain_text("Saturn.")
    turn, side = (page.locator(s).bounding_box() for s in (".review-turn", ".review-side"))
    assert turn is not None and side is not None
    assert turn["y"] + turn["height"] <= side["y"]  # one above the other
    clean(page)
    shot(page, "390")
    shot_of(page, ".review-rating", "rating-390")
    page.locator("#decision-reject").tap()
    expect(page.locator("#decision-reject")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#reason")).to_be_focused()
    page.keyboard.type(REASON)
    clean(page)
    shot(page, "reject-390")
    shot_of(page, ".review-decide", "decide-390")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit").tap()
    assert decided(first) == ("rejected", REASON)
    expect(page.locator("#empty-title")).to_be_visible()
    clean(page)
    shot(page, "empty-390")


def test_without_script_a_reason_and_the_reject_button_reject(
    live_server: LiveServer, chromium: Browser
) -> None:
    first, second, third = rated_turns("t-1", "t-2", "t-3")
    UserFactory.create(username="noscript", role="reviewer", password=demo.DEMO_PASSWORD)
    page = chromium.new_context(java_script_enabled=False).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "noscript", "/review/")
    holds(page, first)
    expect(page.locator("#review-submit")).to_be_hidden()
    with page.expect_navigation():
        page.get_by_role("button", name="Reject").click()  # no reason
    expect(page.locator("#reason-error")).to_have_text("A rejection says why.")
    assert not RatingReview.objects.exists()
    page.locator("#reason").fill(REASON)
    with page.expect_navigation():
        page.get_by_role("button", name="Reject").click()
    assert decided(first) == ("rejected", REASON)
    with page.expect_navigation():
        page.get_by_role("button", name="Accept").click()
    assert decided(second) == ("accepted", "")
    holds(page, third)
    page.locator("#review-amend summary").click()  # the amendment's fold
    page.locator("#q-correctness").fill("-1")
    with page.expect_navigation():
        page.get_by_role("button", name="Amend").click()
    assert decided(third)[0] == "amended"
    assert amendment_answers(third) == {"correctness": -1.0, "helpfulness": -0.25}
    fits(page)


def test_a_reviewer_amends_a_rating_by_keyboard(live_server: LiveServer, chromium: Browser) -> None:
    (first,) = rated_turns("t-1")
    page = person(chromium, live_server, "rita", 1280)
    holds(page, first)
    page.keyboard.press("e")
    expect(page.locator("#decision-amend")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#review-amend")).to_be_visible()
    expect(page.locator("#review-amend summary")).to_be_hidden()  # the button is the way in
    # Their answers on the default rubric fill it in; the focus is in its first question.
    expect(page.locator("#q-correctness")).to_be_focused()
    expect(page.locator("#q-correctness")).to_have_value("0.75")
    expect(page.locator("#q-helpfulness")).to_have_value("-0.25")
    expect(page.locator("#key-status")).to_contain_text("Amend chosen")
    expect(page.locator("#review-submit")).to_contain_text("Submit: amend")
    clean(page)
    shot(page, "amend-1280")
    page.keyboard.press("Control+A")
    page.keyboard.type("7")  # out of range: refused beside its question
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("#q-correctness-error")).to_be_visible()
    expect(page.locator("#q-correctness")).to_be_focused()
    expect(page.locator("#q-correctness")).to_have_value("7")
    expect(page.locator("#decision-amend")).to_have_attribute("aria-pressed", "true")
    assert not RatingReview.objects.exists()
    clean(page)
    shot(page, "amend-refused-1280")
    page.keyboard.press("Control+A")
    page.keyboard.type("-1")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert decided(first)[0] == "amended"
    assert amendment_answers(first) == {"correctness": -1.0, "helpfulness": -0.25}
    expect(page.locator(".messages")).to_contain_text("Amended: your rating takes its place")
    expect(page.locator("#empty-title")).to_be_visible()


def test_the_rubrics_own_keys_do_not_take_the_pages_and_spans_are_marked(
    live_server: LiveServer, chromium: Browser
) -> None:
    lead = human_actor("lead", "manager")
    keyed = [
        dict(RUBRIC[0], hotkeys=["a", "r", "e", "x", "y"]),
        *RUBRIC[1:],
        {"kind": "spans", "key": "errors", "label": "Errors", "options": ["factual"]},
    ]
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": keyed}).status_code == 200
    )
    theirs = {**ANSWERS, "errors": [{"start": 0, "end": 3, "label": "factual"}]}
    (first,) = rated_turns("t-1", answers=theirs)
    page = person(chromium, live_server, "rita", 1280)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.keyboard.press("e")  # Amend, not the third answer to "Overall quality"
    expect(page.locator("#decision-amend")).to_have_attribute("aria-pressed", "true")
    quality = page.locator("input[name=q-quality]:checked")
    expect(quality).to_have_value("2")  # theirs, kept
    expect(quality).to_be_focused()
    page.keyboard.press("ArrowRight")  # the next answer: 3
    expect(page.locator("input[name=q-quality]:checked")).to_have_value("3")
    # Spans are marked as on the rating page (rubric.js): theirs listed, one more added.
    spans = page.locator("#review-amend .span-list li")
    expect(spans).to_have_count(1)
    page.evaluate(SELECT_IN_RESPONSE, [5, 12])  # "Saturn."
    page.locator("#review-amend .span-mark[data-label=factual]").click()
    expect(spans).to_have_count(2)
    clean(page)
    shot_of(page, ".review-decide", "amend-spans-1280")
    page.locator("input[name=q-quality]:checked").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert decided(first)[0] == "amended"
    answers = amendment_answers(first)
    assert answers["quality"] == 3
    assert answers["errors"] == [
        {"start": 0, "end": 3, "label": "factual"},
        {"start": 5, "end": 12, "label": "factual"},
    ]
    assert errors == []


def test_a_reviewer_on_a_phone_taps_amend_an_answer_and_submit(
    live_server: LiveServer, chromium: Browser
) -> None:
    lead = human_actor("lead", "manager")
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC}).status_code == 200
    )
    (first,) = rated_turns("t-1", answers=ANSWERS)
    page = person(chromium, live_server, "rita", 390, touch=True)
    holds(page, first)
    page.locator("#decision-amend").tap()
    expect(page.locator("#review-amend")).to_be_visible()
    expect(page.locator("input[name=q-quality][value='2']")).to_be_checked()  # theirs
    page.locator("label.pill", has=page.locator("input[name=q-quality][value='4']")).tap()
    expect(page.locator("input[name=q-quality][value='4']")).to_be_checked()
    clean(page)
    shot(page, "amend-390")
    shot_of(page, ".review-decide", "amend-decide-390")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit").tap()
    assert decided(first)[0] == "amended"
    # Theirs kept where not changed (the options in the rubric's order, as stored).
    assert amendment_answers(first) == {**ANSWERS, "quality": 4, "tags": ["terse", "wrong"]}
    expect(page.locator("#empty-title")).to_be_visible()
    clean(page)


def test_the_list_of_reviews_fits_a_phone(live_server: LiveServer, chromium: Browser) -> None:
    first, second, third = rated_turns("t-1", "t-2", "t-3")
    boss = human_actor("boss-r", "reviewer")
    for feedback_id, body in (
        (first, {"decision": "accept"}),
        (second, {"decision": "reject", "reason": f"Wrong planet. {UNBROKEN}\n<b>not bold</b>"}),
        (third, {"decision": "amend", "answers": {"correctness": -1.0, "helpfulness": 0.5}}),
    ):
        sent = boss.rest("post", "/api/reviews/", {"feedback_id": feedback_id, **body})
        assert sent.status_code == 201, sent.content
    reviewer = person(chromium, live_server, "rita", 390, touch=True)
    reviewer.goto(f"{live_server.url}/reviews/")
    expect(reviewer.locator(".review-item")).to_have_count(3)
    expect(reviewer.locator(".review-item .status")).to_have_text(
        ["amended", "rejected", "accepted"]
    )
    expect(reviewer.locator(".review-item-reason dd").nth(1)).to_contain_text("<b>not bold</b>")
    clean(reviewer)
    shot(reviewer, "list-390")
    annie = User.objects.get(username="annie")
    annie.set_password(demo.DEMO_PASSWORD)
    annie.save()
    page = chromium.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(page, live_server.url, "annie", "/queue/")
    with page.expect_navigation():
        page.get_by_role("link", name="Your reviewed ratings").click()
    expect(page.locator("h1")).to_have_text("Your reviewed ratings")
    expect(page.locator(".review-item")).to_have_count(3)
    fits(page)
    shot(page, "list-annotator-390")
