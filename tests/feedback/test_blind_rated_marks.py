"""Blind, by what a turn list says is rated: to an annotator, a turn is rated when they rated it,
whoever else did, on `GET /api/turns/` (feedback.selectors.turn_queue) and on the turns page
(feedback.selectors.rated_for) alike.

test_explorer.py checks the REST list after a reviewer's rating of a turn needing one; here two
other people complete a turn needing two, and the page must tell the annotator what REST does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client

from core.accounts.models import User
from feedback.models import Turn
from tests.builders import feedback, feedback_req, turn
from tests.harness import human_actor

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Actor

pytestmark = pytest.mark.django_db
TURNS = ("t-1", "t-2")


def rates(actor: Actor, correlation_id: str) -> None:
    response = actor.learn(feedback_req(feedback(correlation_id=correlation_id)))
    assert response.status_code == 200, response.json()


def unrated_over_rest(actor: Actor) -> set[str]:
    body = actor.client.get("/api/turns/", {"unrated": "true"}).json()
    return {t["correlation_id"] for t in body["results"]}


def rated_on_the_page(actor: Actor) -> set[str]:
    client = Client()
    client.force_login(User.objects.get(username=actor.name))
    rated: set[int] = client.get("/turns/").context["rated"]
    return set(Turn.objects.filter(pk__in=rated).values_list("correlation_id", flat=True))


def test_a_turn_others_finished_rating_is_unrated_to_an_annotator_on_rest_and_page_alike(
    agent: Actor, ann: Actor, rev: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queued: dict[str, Any] = {"turns": [{"correlation_id": c, "rated_turn": turn()} for c in TURNS]}
    assert agent.rest("post", "/api/turns/", queued).status_code == 201
    bob = human_actor("bob", "annotator")
    rates(bob, "t-1")
    rates(rev, "t-1")  # t-1 has its two ratings now
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 0

    assert unrated_over_rest(ann) == {"t-1", "t-2"}
    assert rated_on_the_page(ann) == set()

    rates(ann, "t-2")

    assert unrated_over_rest(ann) == {"t-1"}
    assert rated_on_the_page(ann) == {"t-2"}
    # What the others are told is theirs: bob rated t-1; the reviewer sees the turns' own state.
    assert unrated_over_rest(bob) == {"t-2"}
    assert unrated_over_rest(rev) == {"t-2"}
