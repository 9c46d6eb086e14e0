"""The list of reviews, /reviews/: an annotator sees the reviews of their own ratings, a reviewer
every one of the project's, newest first, a page at a time, of one decision if asked; each with
its decision, the rating and its turn, who, why (escaped, bounded), when, and an amendment's
answers in words. Linked from the queue for everyone who rates and from /review/ for those who
review; not from the header."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup, Tag

from feedback.models import Feedback
from feedback.pages import review_list
from feedback.reviews.models import RatingReview
from tests.builders import turn
from tests.harness import Actor, human_actor

if TYPE_CHECKING:
    from django.test import Client

    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

SCORES = {"correctness": 0.5, "helpfulness": -0.5}
HOSTILE = "<script>alert('x')</script> & <b>bold</b>"


def queued(agent: Actor, *keys: str) -> None:
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in keys]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def rated(person: Actor, key: str) -> str:
    """The person's rating of turn `key`: its first feedback_id, the rating's name."""
    response = person.rest("post", "/api/ratings/", {"turn": key, "answers": SCORES})
    assert response.status_code == 201, response.content
    rating_id = response.json()["rating_id"]
    rows = Feedback.objects.filter(feedback_id__startswith=rating_id).order_by("id")
    return str(rows.values_list("feedback_id", flat=True)[0])


def reviewed(reviewer: Actor, feedback_id: str, decision: str, **more: Any) -> None:
    body = {"feedback_id": feedback_id, "decision": decision, **more}
    response = reviewer.rest("post", "/api/reviews/", body)
    assert response.status_code == 201, response.content


def soup(response: ClientResponse, status: int = 200) -> BeautifulSoup:
    assert response.status_code == status, response.content[:3000]
    return BeautifulSoup(response.content, "html.parser")


def one(node: BeautifulSoup | Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, f"nothing matches {selector}"
    return found


def text(node: BeautifulSoup | Tag) -> str:
    return node.get_text(" ", strip=True)


def rows(page: BeautifulSoup) -> list[dict[str, str]]:
    """Each review listed: its decision, its rating, and each of its facts by label."""
    listed = []
    for item in page.select(".review-item"):
        facts = {
            text(one(d, "dt")): text(one(d, "dd")) for d in item.select(".review-item-facts > div")
        }
        facts["decision"] = text(one(item, ".status"))
        facts["rating"] = text(one(item, ".review-item-rating .mono"))
        listed.append(facts)
    return listed


@pytest.fixture
def three_reviewed(agent: Actor, ann: Actor, rev: Actor) -> list[str]:
    """ann's ratings of t-1 and t-2 and otto's of t-3, accepted, rejected and amended by rev in
    that order: their names."""
    otto = human_actor("otto", "annotator")
    queued(agent, "t-1", "t-2", "t-3")
    ratings = [rated(ann, "t-1"), rated(ann, "t-2"), rated(otto, "t-3")]
    reviewed(rev, ratings[0], "accept")
    reviewed(rev, ratings[1], "reject", reason=HOSTILE)
    reviewed(rev, ratings[2], "amend", answers={"correctness": -1.0}, reason="Wrong.")
    return ratings


def test_an_annotator_sees_the_reviews_of_their_own_ratings_only(
    three_reviewed: list[str], ann: Actor
) -> None:
    page = soup(ann.browser().get("/reviews/"))
    assert text(one(page, "h1")) == "Your reviewed ratings"
    assert rows(page) == [
        {
            "decision": "rejected",
            "rating": three_reviewed[1],
            "Rated": "turn t-2",
            "Reviewer": "rev",
            "Reason": HOSTILE,
        },
        {
            "decision": "accepted",
            "rating": three_reviewed[0],
            "Rated": "turn t-1",
            "Reviewer": "rev",
            "Reason": "none given",
        },
    ]  # newest first, and no annotator named: they are all theirs


def test_a_reviewer_sees_every_review_with_its_annotator_and_an_amendments_answers(
    three_reviewed: list[str], rev: Actor
) -> None:
    page = soup(rev.browser().get("/reviews/"))
    assert text(one(page, "h1")) == "Reviews of ratings"
    listed = rows(page)
    assert [(r["decision"], r["rating"], r["Annotator"]) for r in listed] == [
        ("amended", three_reviewed[2], "otto"),
        ("rejected", three_reviewed[1], "ann"),
        ("accepted", three_reviewed[0], "ann"),
    ]
    amended = one(page, ".review-item .review-item-amendment")
    answers = {text(one(d, "dt")): text(one(d, "dd")) for d in amended.select("dl > div")}
    assert answers == {"Correctness": "-1"}
    assert one(page, "a.button[href='/review/']")  # back to reviewing


def test_the_decision_filter_lists_one_decision_and_a_bad_one_is_refused(
    three_reviewed: list[str], rev: Actor
) -> None:
    browser = rev.browser()
    page = soup(browser.get("/reviews/?decision=rejected"))
    assert [r["rating"] for r in rows(page)] == [three_reviewed[1]]
    current = one(page, ".reviews-filter a[aria-current=true]")
    assert (text(current), current["href"]) == ("Rejected", "/reviews/?decision=rejected")
    page = soup(browser.get("/reviews/?decision=maybe"), 400)
    assert "decision" in text(one(page, "[role=alert]"))
    assert len(rows(page)) == 3  # every review, said so


def test_pages_go_on_by_a_signed_cursor_and_a_forged_one_is_no_page(
    three_reviewed: list[str], rev: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_list, "PAGE_SIZE", 2)
    browser = rev.browser()
    page = soup(browser.get("/reviews/"))
    assert [r["rating"] for r in rows(page)] == [three_reviewed[2], three_reviewed[1]]
    older = one(page, ".pager a[rel=next]")["href"]
    following = soup(browser.get(f"/reviews/{older}"))
    assert [r["rating"] for r in rows(following)] == [three_reviewed[0]]
    assert following.select(".pager a[rel=next]") == []
    assert one(following, ".pager a")["href"] == "?"  # back to the newest
    for forged in ("42", "not-signed", "x" * 300, "NDI:1abc:def"):
        refused = soup(browser.get("/reviews/", {"cursor": forged}), 404)
        assert rows(refused) == []
        assert "No such page" in text(one(refused, "#no-page"))


def test_a_stored_reason_is_escaped_and_bounded(three_reviewed: list[str], rev: Actor) -> None:
    html = rev.browser().get("/reviews/?decision=rejected").content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html
    RatingReview.objects.filter(decision="rejected").update(reason="why " * 500)
    page = soup(rev.browser().get("/reviews/?decision=rejected"))
    (row,) = rows(page)
    assert len(row["Reason"]) == review_list.REASON_SHOWN and row["Reason"].endswith("…")


def test_with_no_review_the_page_says_so(ann: Actor, rev: Actor) -> None:
    page = soup(ann.browser().get("/reviews/"))
    assert text(one(page, "#reviews-empty-title")) == "None of your ratings is reviewed yet"
    page = soup(rev.browser().get("/reviews/?decision=amended"))
    assert text(one(page, "#reviews-empty-title")) == "No amended ratings"


def test_the_queue_links_it_for_everyone_who_rates_and_the_review_page_for_reviewers(
    ann: Actor, rev: Actor
) -> None:
    queue = soup(ann.browser().get("/queue/"))
    assert text(one(queue, "a.reviewed-link[href='/reviews/']")) == "Your reviewed ratings"
    queue = soup(rev.browser().get("/queue/"))
    assert text(one(queue, "a.reviewed-link[href='/reviews/']")) == "Reviews of ratings"
    assert one(soup(rev.browser().get("/review/")), ".head-actions a[href='/reviews/']")


def test_the_header_gets_no_link_to_it(boss: Actor, rev: Actor, ann: Actor) -> None:
    for person in (boss, rev, ann):
        header = one(soup(person.browser().get("/reviews/")), "header.bar")
        assert header.select("a[href='/reviews/']") == []


def test_it_asks_for_a_login_first(client: Client) -> None:
    response = client.get("/reviews/")
    assert response.status_code == 302 and "/login/" in response.headers["Location"]
