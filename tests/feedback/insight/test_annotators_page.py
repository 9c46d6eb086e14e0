"""The annotators' page, /annotators/: a row a person with the figures `GET /api/annotators/`
computes, in words; a manager sees everyone, an annotator their own as "Your work"; an empty
state; the period picker; a link from the agreement page and the queue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup, Tag
from django.test import Client

from core.accounts.models import User
from feedback.insight.pages import seconds_shown
from feedback.models import Lease
from tests.builders import feedback, feedback_req, turn
from tests.harness import Actor, human_actor

if TYPE_CHECKING:
    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

SCORES = {"correctness": 0.5, "helpfulness": -0.5}


def soup(response: ClientResponse, status: int = 200) -> BeautifulSoup:
    assert response.status_code == status, response.content[:3000]
    return BeautifulSoup(response.content, "html.parser")


def one(node: BeautifulSoup | Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, f"nothing matches {selector}"
    return found


def text(node: Tag, selector: str) -> str:
    return " ".join(one(node, selector).get_text().split())


def rows(page: BeautifulSoup) -> dict[str, Tag]:
    return {str(row["data-person"]): row for row in page.select("tr[data-person]")}


@pytest.fixture
def rated(agent: Actor, settings: Any) -> None:
    """`ana` and `ben` each rate two turns from the queue, `ana` in 42 s each."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    body = {"turns": [{"correlation_id": f"t-{i}", "rated_turn": turn()} for i in range(3)]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    for name in ("ana", "ben"):
        person = human_actor(name, "annotator")
        for _ in range(2):
            key = person.rest("post", "/api/queue/next/").json()["turn"]["correlation_id"]
            if name == "ana":
                lease = Lease.objects.get(username=name)
                Lease.objects.filter(pk=lease.pk).update(created=lease.created - 42)
            sent = person.rest("post", "/api/ratings/", {"turn": key, "answers": SCORES})
            assert sent.status_code == 201, sent.content


@pytest.fixture
def manager(db: None) -> Actor:
    return human_actor("lead", "manager")


def test_a_manager_sees_every_person_with_the_apis_figures(rated: None, manager: Actor) -> None:
    answer = {
        row["username"]: row for row in manager.rest("get", "/api/annotators/").json()["results"]
    }
    page = soup(manager.browser().get("/annotators/"))
    assert text(page, "h1") == "Each person's work"
    shown = rows(page)
    assert set(shown) == set(answer) == {"ana", "ben"}
    for name, row in shown.items():
        assert text(row, "[data-figure=items]") == str(answer[name]["items"])
        assert text(row, "[data-figure=skips]") == "0"
    assert text(shown["ana"], "[data-figure=time]") == "42 s p90 42 s, of 2 timed"
    assert text(shown["ben"], "[data-figure=time]").endswith("of 2 timed")
    assert text(shown["ben"], "[data-figure=gold]") == "no gold item"
    assert text(shown["ben"], "[data-figure=acceptance]") == "none decided"


def test_an_annotator_sees_their_own_row_as_your_work(rated: None) -> None:
    ben = human_actor("ben2", "annotator")
    page = soup(ben.browser().get("/annotators/"))
    assert text(page, "h1") == "Your work"
    assert rows(page) == {}  # ben2 did nothing yet
    ana = Client()
    ana.force_login(User.objects.get(username="ana"))
    ana_page = soup(ana.get("/annotators/"))
    assert list(rows(ana_page)) == ["ana"]
    assert text(ana_page, "h1") == "Your work"


def test_with_nothing_in_the_period_the_page_says_how_people_appear(manager: Actor) -> None:
    page = soup(manager.browser().get("/annotators/?days=7"))
    assert text(page, ".insight-empty h2") == "Nothing in the last 7 days"
    assert one(page, "nav[aria-label=Period] a[aria-current=page]")["href"] == "?days=7"


def test_a_period_not_offered_is_a_400_showing_the_default(manager: Actor) -> None:
    page = soup(manager.browser().get("/annotators/?days=12"), 400)
    assert "7, 30 or 90 days" in text(page, ".error")
    assert one(page, "nav[aria-label=Period] a[aria-current=page]")["href"] == "?days=30"


def test_a_person_whose_absence_raises_alpha_is_marked(manager: Actor) -> None:
    levels = [-1.0, -0.5, 0.0, 0.5, 1.0]
    truth = {f"u-{i}": levels[i % 5] for i in range(10)}
    for name, sign in (("ana", 1), ("ben", 1), ("cyd", -1)):
        items = [
            feedback(
                feedback_id=f"{name}-{key}", source="human", score=sign * s, correlation_id=key
            )
            for key, s in truth.items()
        ]
        assert human_actor(name, "annotator").learn(feedback_req(*items)).status_code == 200
    shown = rows(soup(manager.browser().get("/annotators/")))
    assert "stands-out" in shown["cyd"].get_attribute_list("class")
    assert "the others agree better without them" in text(shown["cyd"], "[data-figure=alpha]")
    assert not shown["ana"].select(".reading")


def test_the_agreement_page_and_the_queue_link_here(rev: Actor, ann: Actor) -> None:
    agreement = soup(rev.browser().get("/agreement/"))
    assert one(agreement, "a[href='/annotators/']").get_text() == "Each person's work →"
    queue = soup(ann.browser().get("/queue/"))
    assert one(queue, "a[href='/annotators/']").get_text() == "Your work →"


@pytest.mark.parametrize(
    ("seconds", "shown"), [(None, "—"), (41.6, "42 s"), (99.4, "99 s"), (210, "3.5 min")]
)
def test_a_time_per_item_reads_in_seconds_then_minutes(seconds: float | None, shown: str) -> None:
    assert seconds_shown(seconds) == shown
