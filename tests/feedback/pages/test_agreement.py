"""The agreement page: alpha per dimension, and the turns where annotators disagree most."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.core.cache import cache

from feedback.models import Turn
from tests.builders import feedback, feedback_req, turn
from tests.factories import UserFactory
from tests.harness import human_actor

if TYPE_CHECKING:
    from django.test import Client

    from tests.harness import Actor

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _several_raters_a_turn(settings: Any) -> None:
    # Several people rate each turn here: a turn takes as many as it needs, no more
    # (feedback.raters), so it needs them.
    settings.LEARNPORTAL_RATINGS_PER_TURN = 8


@pytest.fixture(autouse=True)
def _no_cached_agreement() -> None:
    # Test databases reuse ids once a test's transaction is rolled back: a key of an earlier
    # test could name other rows. A real database never reuses them.
    cache.clear()


def rate(actor: Actor, correlation_id: str, score: float, dimension: str = "correctness") -> None:
    item = feedback(
        correlation_id=correlation_id, rated_turn=turn(), score=score, dimension=dimension
    )
    assert actor.learn(feedback_req(item)).status_code == 200


@pytest.fixture
def reviewer(db: None) -> Client:
    """A reviewer on a database without the demo's ratings: each test rates what it measures."""
    from django.test import Client

    client = Client()
    client.force_login(UserFactory.create(username="rev-a", role="reviewer"))
    return client


@pytest.fixture
def rated(db: None) -> list[Actor]:
    """Two raters who agree on c-0 and c-1, differ a little on c-2 and a lot on c-3."""
    a, b = human_actor("ada", "annotator"), human_actor("bo", "annotator")
    for name, x, y in (
        ("c-0", 0.5, 0.5),
        ("c-1", -0.5, -0.4),
        ("c-2", 0.0, 0.3),
        ("c-3", -0.9, 0.8),
    ):
        rate(a, name, x)
        rate(b, name, y)
    return [a, b]


def test_reviewers_see_alpha_for_each_dimension(reviewer: Client, rated: list[Actor]) -> None:
    page = reviewer.get("/agreement/").content.decode()
    row = page[page.index('data-dimension="correctness"') :]
    row = row[: row.index("</tr>")]
    assert '<td class="num">4</td>' in row and '<td class="num">8</td>' in row
    assert 'class="reading reading-unreliable">unreliable' in row
    safety = page[page.index('data-dimension="safety"') :]
    assert "not enough data" in safety[: safety.index("</tr>")]


def test_the_widest_disagreement_comes_first_and_links_to_the_turns_detail(
    reviewer: Client, rated: list[Actor]
) -> None:
    page = reviewer.get("/agreement/").content.decode()
    listed = page[page.index('id="disagreements-title"') :]
    order = [listed.index(f">c-{i}</a>") for i in (3, 2, 1)]
    assert order == sorted(order)
    assert ">c-0</a>" not in listed  # the same score from both: no disagreement
    worst = Turn.objects.get(correlation_id="c-3")
    assert f'<a class="mono" href="/explorer/turns/{worst.pk}/">c-3</a>' in listed
    assert '<span class="who-rated">ada</span> <span class="mono neg">-0.90</span>' in listed
    assert '<span class="who-rated">bo</span> <span class="mono pos">0.80</span>' in listed


def test_agent_supplied_ids_are_escaped(reviewer: Client, rated: list[Actor]) -> None:
    a, b = rated
    rate(a, "<img src=x onerror=alert(1)>", -1.0)
    rate(b, "<img src=x onerror=alert(1)>", 1.0)
    page = reviewer.get("/agreement/").content.decode()
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_with_no_turn_rated_twice_it_says_so(reviewer: Client) -> None:
    page = reviewer.get("/agreement/").content.decode()
    assert "No turn has scores from two people yet" in page
    assert page.count("not enough data") == 5


def test_annotators_get_the_403_page_and_no_link(annotator: Client, reviewer: Client) -> None:
    response = annotator.get("/agreement/")
    assert response.status_code == 403
    assert "Not for your role" in response.content.decode()
    assert 'href="/agreement/"' not in annotator.get("/").content.decode()
    assert 'href="/agreement/"' in reviewer.get("/").content.decode()


def test_the_nav_marks_the_agreement_page_current(reviewer: Client) -> None:
    page = reviewer.get("/agreement/").content.decode()
    assert '<a href="/agreement/" aria-current="page">Agreement</a>' in page
