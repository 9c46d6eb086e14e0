"""The review page, /review/: a reviewer holds one person's rating at a time, sees the turn it
rates, who gave it, its scores, every answer and its remarks, and accepts it, rejects it with
a reason, or amends it with their own answers to the current rubric (then the next one), or
gives it back; every refusal is shown on the page and nothing is stored (docs/contract.md,
"Quality: reviews of ratings")."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup, Tag

from feedback.models import Feedback, Rating
from feedback.reviews.models import RatingReview, ReviewLease
from tests.builders import feedback, feedback_req, turn
from tests.harness import Actor, human_actor

if TYPE_CHECKING:
    from django.test import Client

    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

PROMPT = "Which planet is largest? <b>Say why.</b>"
RESPONSE = "Jupiter: 318 Earths.\n<script>alert('x')</script>"
SCORES = {"correctness": 0.5, "helpfulness": -0.5}
RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Overall quality", "min": 1, "max": 5,
     "step": 1, "required": True},
    {"kind": "categorical", "key": "tags", "label": "Tags", "options": ["terse", "wrong", "rude"],
     "multiple": True},
    {"kind": "boolean", "key": "safe", "label": "Safe to show"},
    {"kind": "text", "key": "notes", "label": "Notes"},
    {"kind": "spans", "key": "errors", "label": "Errors", "options": ["factual"]},
]  # fmt: skip


def queued(agent: Actor, *keys: str) -> None:
    rated = turn(prompt=PROMPT, response=RESPONSE)
    body = {"turns": [{"correlation_id": key, "rated_turn": rated} for key in keys]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def rated(person: Actor, key: str, answers: dict[str, Any] | None = None, **extra: Any) -> str:
    """The person's rating of turn `key`: the feedback_id the page names it by (its first row)."""
    body = {"turn": key, "answers": SCORES if answers is None else answers, **extra}
    response = person.rest("post", "/api/ratings/", body)
    assert response.status_code == 201, response.content
    rating_id = response.json()["rating_id"]
    return str(
        Feedback.objects.filter(feedback_id__startswith=rating_id)
        .order_by("id")
        .values_list("feedback_id", flat=True)
        .first()
    )


def soup(response: ClientResponse, status: int = 200) -> BeautifulSoup:
    assert response.status_code == status, response.content[:3000]
    return BeautifulSoup(response.content, "html.parser")


def one(node: BeautifulSoup | Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, f"nothing matches {selector}"
    return found


def held(page: BeautifulSoup) -> str:
    """The rating the page holds for this reviewer: the feedback_id its form names."""
    return str(one(page, "#review-form input[name=feedback_id]")["value"])


def decide(client: Client, feedback_id: str, decision: str, reason: str = "") -> ClientResponse:
    body = {"do": "decide", "feedback_id": feedback_id, "decision": decision, "reason": reason}
    return client.post("/review/", body)


def text(node: BeautifulSoup | Tag) -> str:
    return node.get_text(" ", strip=True)


def alerts(page: BeautifulSoup) -> str:
    return " ".join(text(node) for node in page.select("[role=alert]"))


@pytest.fixture
def two_rated(agent: Actor, ann: Actor) -> list[str]:
    queued(agent, "t-1", "t-2")
    return [rated(ann, "t-1"), rated(ann, "t-2")]


@pytest.fixture
def reviewer(rev: Actor) -> Client:
    return rev.browser()


def test_the_page_shows_the_held_rating_with_its_prompt_response_annotator_and_scores(
    two_rated: list[str], reviewer: Client
) -> None:
    response = reviewer.get("/review/")
    page = soup(response)
    assert held(page) == two_rated[0]
    assert one(page, "#review-prompt").get_text() == PROMPT
    assert one(page, "#review-response").get_text() == RESPONSE
    html = response.content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html  # escaped text
    assert text(one(page, ".review-annotator")) == "ann"
    rows = [
        [text(cell) for cell in row.select("th, td")]
        for row in page.select(".review-scores tbody tr")
    ]
    assert rows == [
        ["Correctness", "0.50", "positive", "1.00"],
        ["Helpfulness", "-0.50", "negative", "1.00"],
    ]
    answers = {text(one(a, "dt")): text(one(a, "dd")) for a in page.select(".review-answer")}
    assert answers == {"Correctness": "0.5", "Helpfulness": "-0.5"}
    # Without script: three submit buttons named `decision`, and the reason beside them.
    assert [(b["name"], b["value"]) for b in page.select("#review-form button[name=decision]")] == [
        ("decision", "accept"),
        ("decision", "reject"),
        ("decision", "amend"),
    ]
    # The amendment's questions in a fold, closed until Amend is chosen: the default rubric's.
    amendment = one(page, "#review-form details#review-amend")
    assert not amendment.has_attr("open")
    assert [text(one(f, "legend")) for f in amendment.select("fieldset.question")] == [
        "Correctness", "Helpfulness", "Safety", "Tone", "Plan quality",
    ]  # fmt: skip
    assert one(page, "#review-form textarea[name=reason]")["maxlength"] == "2000"
    clock = one(page, "#lease-clock")
    assert (clock["data-unit"], clock["data-act"]) == ("rating", "review")
    assert text(one(page, ".queue-modes a[aria-current=page]")) == "Reviews"
    assert one(page, "#shortcuts")  # `?` opens it (keys.js)


def test_a_rubric_rating_shows_every_answer_and_its_comment_and_correction(
    agent: Actor, ann: Actor, reviewer: Client
) -> None:
    lead = human_actor("lead", "manager")
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC}).status_code == 200
    )
    queued(agent, "t-1")
    answers = {
        "quality": 2,
        "tags": ["wrong", "terse"],
        "safe": False,
        "notes": "Says <i>Saturn</i> in the end.",
        "errors": [{"start": 0, "end": 7, "label": "factual"}],
    }
    extra = {"comment": "Too kind.", "correction": "Saturn", "correction_span": [0, 7]}
    first = rated(ann, "t-1", answers, **extra)
    page = soup(reviewer.get("/review/"))
    assert held(page) == first
    shown = {text(one(a, "dt")): text(one(a, "dd")) for a in page.select(".review-answer")}
    assert shown == {
        "Overall quality": "2",
        "Tags": "terse, wrong",
        "Safe to show": "no",
        "Notes": "Says <i>Saturn</i> in the end.",
        "Errors": "factual: “Jupiter”",
    }
    assert [text(one(row, "th")) for row in page.select(".review-scores tbody tr")] == [
        "Overall quality dimension: helpfulness"  # stored as the default dimension
    ]
    assert one(page, ".review-comment").get_text() == "Too kind."
    assert one(page, ".review-correction").get_text() == "Saturn"
    assert "Jupiter" in text(one(page, ".review-replaces"))


def test_accepting_stores_an_accepted_review_and_the_page_shows_the_next_rating(
    two_rated: list[str], reviewer: Client
) -> None:
    assert held(soup(reviewer.get("/review/"))) == two_rated[0]
    sent = decide(reviewer, two_rated[0], "accept")
    assert (sent.status_code, sent.headers["Location"]) == (302, "/review/")
    reviews = RatingReview.objects.all()
    assert {(r.decision, r.reviewer, r.reason) for r in reviews} == {("accepted", "rev", "")}
    assert (
        reviews.count()
        == Feedback.objects.filter(feedback_id__startswith=two_rated[0][:32]).count()
    )
    following = soup(reviewer.get("/review/"))
    assert "Accepted: the rating stays counted." in text(one(following, ".messages"))
    assert held(following) == two_rated[1]


def test_a_rejection_without_a_reason_is_refused_beside_the_field_and_nothing_is_stored(
    two_rated: list[str], reviewer: Client
) -> None:
    reviewer.get("/review/")
    page = soup(decide(reviewer, two_rated[0], "reject", "   "), 400)
    assert not RatingReview.objects.exists()
    assert held(page) == two_rated[0]  # the same rating, kept for them
    assert text(one(page, "#reason-error")) == "A rejection says why."
    reason = one(page, "textarea[name=reason]")
    assert (reason["aria-invalid"], reason["aria-describedby"]) == ("true", "reason-error")
    assert one(page, "#review-form")["data-chosen"] == "reject"  # what was chosen, kept
    assert "Your review was not stored: correct what is marked below." in alerts(page)
    assert one(page, "#review-prompt").get_text() == PROMPT  # the rest of the page, as it was


def test_a_reason_too_long_is_refused_beside_the_field_with_what_was_typed_kept(
    two_rated: list[str], reviewer: Client
) -> None:
    reviewer.get("/review/")
    typed = "Generous. " * 201  # 2010 characters
    page = soup(decide(reviewer, two_rated[0], "accept", typed), 400)
    assert not RatingReview.objects.exists()
    assert text(one(page, "#reason-error")) == "Too long: keep it to 2000 characters."
    assert one(page, "textarea[name=reason]").get_text() == typed
    assert one(page, "#review-form")["data-chosen"] == "accept"


def test_no_decision_is_refused_beside_the_buttons(two_rated: list[str], reviewer: Client) -> None:
    reviewer.get("/review/")
    page = soup(decide(reviewer, two_rated[0], "maybe", "hm"), 400)
    assert text(one(page, "#decision-error")) == "Choose Accept, Reject or Amend."
    assert one(page, "textarea[name=reason]").get_text() == "hm"
    assert not RatingReview.objects.exists()


def test_a_rejection_with_a_reason_is_stored_and_the_rating_leaves_the_feedback_list(
    two_rated: list[str], reviewer: Client, boss: Actor
) -> None:
    listed = {f["feedback_id"] for f in boss.rest("get", "/api/feedback/").json()["results"]}
    assert two_rated[0] in listed
    reviewer.get("/review/")
    sent = decide(reviewer, two_rated[0], "reject", "Scored a wrong answer as right.")
    assert (sent.status_code, sent.headers["Location"]) == (302, "/review/")
    assert {(r.decision, r.reason) for r in RatingReview.objects.all()} == {
        ("rejected", "Scored a wrong answer as right.")
    }
    listed = {f["feedback_id"] for f in boss.rest("get", "/api/feedback/").json()["results"]}
    assert not {f for f in listed if f.startswith(two_rated[0].partition(".")[0])}
    following = soup(reviewer.get("/review/"))
    assert "Rejected: the rating no longer counts" in text(one(following, ".messages"))
    assert held(following) == two_rated[1]


def test_releasing_gives_the_rating_back_for_another_reviewer(
    two_rated: list[str], reviewer: Client, rev2: Actor
) -> None:
    assert held(soup(reviewer.get("/review/"))) == two_rated[0]
    other = rev2.browser()
    assert held(soup(other.get("/review/"))) == two_rated[1]  # not the one held by rev
    sent = reviewer.post("/review/", {"do": "release"})
    assert (sent.status_code, sent.headers["Location"]) == (302, "/")
    assert not ReviewLease.objects.filter(username="rev").exists()
    assert not RatingReview.objects.exists()
    third = human_actor("rex", "reviewer").browser()
    assert held(soup(third.get("/review/"))) == two_rated[0]
    home = soup(reviewer.get("/"))
    assert "The rating is back in the review queue for someone else." in text(home)


def test_a_rating_decided_meanwhile_is_refused_in_a_sentence_above_the_next(
    two_rated: list[str], reviewer: Client, boss: Actor
) -> None:
    reviewer.get("/review/")
    body = {"feedback_id": two_rated[0], "decision": "accept", "reason": ""}
    assert boss.rest("post", "/api/reviews/", body).status_code == 201
    page = soup(decide(reviewer, two_rated[0], "reject", "Wrong."), 409)
    assert "Your review was not stored" in alerts(page) and "reviewed already" in alerts(page)
    assert "Here is the next rating to review." in alerts(page)
    assert held(page) == two_rated[1]
    assert RatingReview.objects.filter(reviewer="rev").count() == 0


def test_an_annotator_gets_the_403_page_and_no_reviews_link(
    two_rated: list[str], ann: Actor, reviewer: Client
) -> None:
    browser = ann.browser()
    refused = browser.get("/review/")
    assert refused.status_code == 403
    assert "Not for your role" in refused.content.decode()
    assert (
        browser.post("/review/", {"feedback_id": two_rated[0], "decision": "accept"}).status_code
        == 403
    )
    assert not RatingReview.objects.exists() and not ReviewLease.objects.exists()
    assert b'href="/review/"' not in browser.get("/queue/").content
    assert b'href="/review/"' in reviewer.get("/queue/").content  # a reviewer's queue links it


def test_with_nothing_to_review_the_page_says_so(
    agent: Actor, rev: Actor, reviewer: Client
) -> None:
    queued(agent, "t-1")
    rated(rev, "t-1")  # their own: never theirs to review
    page = soup(reviewer.get("/review/"))
    assert text(one(page, "#empty-title")) == "Nothing left for you to review"
    assert page.select_one("#review-form") is None
    assert not ReviewLease.objects.exists()


@pytest.mark.parametrize("stored", ["[1, 2]", '"a turn"', "null", "{not json", '{"prompt": 3}'])
def test_a_stored_turn_that_is_no_object_does_not_break_the_page(
    two_rated: list[str], reviewer: Client, stored: str
) -> None:
    Feedback.objects.update(rated_turn=stored)
    page = soup(reviewer.get("/review/"))
    assert held(page) == two_rated[0]
    assert one(page, "#review-prompt").get_text() == PROMPT  # the queued turn's, said so
    assert "cannot be read" in text(one(page, ".review-note"))
    assert decide(reviewer, two_rated[0], "accept").status_code == 302


def test_odd_stored_answers_and_a_turn_not_queued_do_not_break_the_page(
    two_rated: list[str], reviewer: Client
) -> None:
    Feedback.objects.update(rated_turn="[]", correlation_id="gone")
    Rating.objects.update(
        answers={
            "correctness": {"deep": [1, None]},
            "helpfulness": [{"start": 5}],
            "x": 3.0,
            "y": True,
        }
    )
    page = soup(reviewer.get("/review/"))
    assert held(page) == two_rated[0]
    assert page.select_one("#review-prompt") is None
    assert "cannot be read" in text(one(page, ".review-note"))
    shown = {text(one(a, "dt")): text(one(a, "dd")) for a in page.select(".review-answer")}
    assert shown["Correctness"] == '{"deep": [1, null]}'
    assert shown["Helpfulness"] == '[{"start": 5}]'
    assert (shown["x"], shown["y"]) == ("3", "yes")


# ---- Amending: the reviewer's own answers take the rating's place ----


def amend(
    client: Client, feedback_id: str, answers: dict[str, str | list[str]], **more: str
) -> ClientResponse:
    """Amend as the page's form sends it: each answer as its question's field `q-<key>`."""
    body: dict[str, str | list[str]] = {
        "do": "decide",
        "feedback_id": feedback_id,
        "decision": "amend",
        "rubric_version": "1",
        **{f"q-{key}": value for key, value in answers.items()},
        **more,
    }
    return client.post("/review/", body)


def rating_ids(reader: Actor) -> set[str]:
    return {line["rating_id"] for line in reader.exported("answers")}


def prefix(feedback_id: str) -> str:
    return feedback_id.partition(".")[0]


def test_amending_stores_the_reviewers_rating_and_takes_the_annotators_out_of_the_exports(
    two_rated: list[str], reviewer: Client, boss: Actor
) -> None:
    page = soup(reviewer.get("/review/"))
    # Given on the current rubric (the default's version 1): their answers fill the form in.
    assert one(page, "#review-amend #q-correctness")["value"] == "0.5"
    assert one(page, "#review-amend #q-helpfulness")["value"] == "-0.5"
    assert one(page, "#review-amend #q-safety")["value"] == ""
    assert "filled in with their answers" in text(one(page, "#review-amend .amend-note"))
    assert rating_ids(boss) == {prefix(two_rated[0]), prefix(two_rated[1])}
    sent = amend(
        reviewer,
        two_rated[0],
        {"correctness": "-1", "helpfulness": "-0.5"},
        comment="Saturn is not the largest.",
        reason="Scored a wrong answer as right.",
    )
    assert (sent.status_code, sent.headers["Location"]) == (302, "/review/")
    assert {(r.decision, r.reviewer, r.reason) for r in RatingReview.objects.all()} == {
        ("amended", "rev", "Scored a wrong answer as right.")
    }
    (theirs,) = rating_ids(boss) - {prefix(two_rated[1])}
    assert theirs != prefix(two_rated[0])  # the annotator's left the exports; the reviewer's in
    (line,) = [x for x in boss.exported("answers") if x["rating_id"] == theirs]
    assert (line["annotator"], line["answers"]) == (
        "rev",
        {"correctness": -1.0, "helpfulness": -0.5},
    )
    assert Rating.objects.get(rating_id=theirs).comment == "Saturn is not the largest."
    following = soup(reviewer.get("/review/"))
    assert "Amended: your rating takes its place; theirs no longer counts." in text(
        one(following, ".messages")
    )
    assert held(following) == two_rated[1]


def test_a_bad_answer_is_refused_beside_its_question_with_what_was_typed_kept(
    two_rated: list[str], reviewer: Client, boss: Actor
) -> None:
    reviewer.get("/review/")
    page = soup(
        amend(reviewer, two_rated[0], {"correctness": "7"}, comment="Hm.", reason="No."), 400
    )
    assert not RatingReview.objects.exists()
    assert rating_ids(boss) == {prefix(two_rated[0]), prefix(two_rated[1])}
    assert held(page) == two_rated[0]
    refused = one(page, "#review-amend fieldset.invalid")
    assert text(one(refused, "legend")) == "Correctness"
    assert text(one(refused, "#q-correctness-error"))  # the service's words, beside it
    assert refused["aria-describedby"] == "q-correctness-error"
    assert one(page, "#q-correctness")["value"] == "7"  # what was typed, kept
    assert one(page, "#q-helpfulness")["value"] == ""  # not their answer again: what was sent
    assert one(page, "#amend-comment").get_text() == "Hm."
    assert one(page, "textarea[name=reason]").get_text() == "No."
    assert one(page, "#review-form")["data-chosen"] == "amend"
    assert one(page, "#review-amend").has_attr("open")  # open without script too
    assert "Your review was not stored: correct what is marked below." in alerts(page)


def test_a_rubric_rating_fills_the_amendment_in_until_the_rubric_moves_on(
    agent: Actor, ann: Actor, reviewer: Client
) -> None:
    lead = human_actor("lead", "manager")
    # Keys that would be the page's own: the questions' keys are off on this page.
    keyed = [dict(RUBRIC[0], hotkeys=["a", "r", "e", "x", "y"]), *RUBRIC[1:]]
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": keyed}).status_code == 200
    )
    queued(agent, "t-1")
    answers = {
        "quality": 2,
        "tags": ["wrong", "terse"],
        "safe": False,
        "notes": "Says <i>Saturn</i>.",
        "errors": [{"start": 0, "end": 7, "label": "factual"}],
    }
    first = rated(ann, "t-1", answers)
    page = soup(reviewer.get("/review/"))
    amendment = one(page, "#review-amend")
    checked = {(i["name"], i["value"]) for i in amendment.select("input:checked")}
    assert checked == {
        ("q-quality", "2"),
        ("q-tags", "wrong"),
        ("q-tags", "terse"),
        ("q-safe", "no"),
    }
    assert one(amendment, "#q-notes").get_text() == "Says <i>Saturn</i>."
    # JSON as the database kept it: PostgreSQL's jsonb orders an object's keys its own way.
    spans = json.loads(str(one(amendment, "input[name=q-errors]")["value"]))
    assert spans == [{"start": 0, "end": 7, "label": "factual"}]
    assert amendment.select("[data-hotkey], [data-hotkeys]") == []
    assert one(amendment, "input[name=rubric_version]")["value"] == "2"  # the default was 1
    assert "feedback/rubric.js" in str(page)  # it marks spans; its keys are review.js's
    # A new version: the rating was given to other questions, so nothing is filled in.
    moved = [*keyed, {"kind": "text", "key": "why", "label": "Why"}]
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": moved}).status_code == 200
    )
    page = soup(reviewer.get("/review/"))
    assert one(page, "#review-amend").select("input:checked") == []
    assert one(page, "#review-amend input[name=rubric_version]")["value"] == "3"
    assert "filled in" not in text(one(page, "#review-amend .amend-note"))
    # Sent on the version before: refused, with what was chosen kept on the new form.
    page = soup(amend(reviewer, first, {"quality": "4"}, rubric_version="2"), 409)
    assert "the rubric is at version 3 now" in alerts(page)
    assert one(page, "#review-amend input[name=q-quality][value='4']").has_attr("checked")
    assert one(page, "#review-amend input[name=rubric_version]")["value"] == "3"
    assert not RatingReview.objects.exists()


def test_a_rating_of_the_default_form_fills_nothing_in(agent: Actor, reviewer: Client) -> None:
    queued(agent, "t-1")
    person = human_actor("pia", "annotator")
    item = feedback(
        feedback_id="fb-page", source="human", correlation_id="t-1", dimension="correctness"
    )
    assert person.learn(feedback_req(item)).status_code == 200
    page = soup(reviewer.get("/review/"))
    assert held(page) == "fb-page"
    values = [i.get("value", "") for i in page.select("#review-amend input[type=number]")]
    assert values == ["", "", "", "", ""]
    sent = amend(reviewer, "fb-page", {"correctness": "-0.5"})
    assert sent.status_code == 302
    assert RatingReview.objects.get().decision == "amended"


def test_a_reviewer_who_rated_the_turn_is_told_to_accept_or_reject(
    agent: Actor, rev: Actor, reviewer: Client, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queued(agent, "t-1")
    theirs = rated(human_actor("otto", "annotator"), "t-1")
    rated(rev, "t-1")
    assert held(soup(reviewer.get("/review/"))) == theirs
    page = soup(amend(reviewer, theirs, {"correctness": "1"}, reason="Too low."), 409)
    said = "Your review was not stored: you rated this turn yourself: accept or reject this rating."
    assert said in alerts(page)
    assert held(page) == theirs  # still theirs to decide, what was sent kept
    assert one(page, "textarea[name=reason]").get_text() == "Too low."
    assert not RatingReview.objects.exists()
    assert decide(reviewer, theirs, "reject", "Too low.").status_code == 302


def test_the_compare_page_shows_the_reviews_mode_to_those_who_may_review(
    rev: Actor, ann: Actor
) -> None:
    modes = one(soup(rev.browser().get("/compare/")), ".queue-modes")
    assert [text(a) for a in modes.select("a[href='/review/']")] == ["Reviews"]
    modes = one(soup(ann.browser().get("/compare/")), ".queue-modes")
    assert modes.select("a[href='/review/']") == []
