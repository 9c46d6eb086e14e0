from __future__ import annotations

import html
from typing import TYPE_CHECKING

import orjson
import pytest
from django.test import Client

from learnportal import demo
from learnportal.pages import FIRST_TURN
from tests.factories import UserFactory

if TYPE_CHECKING:
    from tests.harness import Actor

pytestmark = pytest.mark.django_db


def test_overview_sends_anonymous_visitors_to_log_in() -> None:
    response = Client().get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_demo_login_reaches_the_overview_with_components_and_history() -> None:
    demo.seed_demo()
    client = Client()
    response = client.post("/login/", {"username": "reviewer", "password": demo.DEMO_PASSWORD})
    assert response.status_code == 302
    page = client.get("/").content.decode()
    assert "code_review" in page
    assert "turns waiting for a rating" in page


def test_wrong_password_says_so_and_does_not_log_in() -> None:
    demo.seed_demo()
    client = Client()
    response = client.post("/login/", {"username": "reviewer", "password": "nope"})
    assert "do not match" in response.content.decode()
    assert client.get("/").status_code == 302


def test_an_empty_portal_shows_how_to_send_a_first_turn_and_the_example_works(
    agent: Actor,
) -> None:
    client = Client()
    client.force_login(UserFactory.create(role="reviewer"))
    page = client.get("/").content.decode()
    assert "Nothing has arrived yet" in page and "/api/turns/" in page
    assert html.escape(orjson.dumps(FIRST_TURN).decode()) in page
    response = agent.client.post("/api/turns/", FIRST_TURN, format="json")
    assert response.status_code in (200, 201), response.json()
    after = client.get("/").content.decode()
    assert "Nothing has arrived yet" not in after
    assert 'data-live-value="turns_unrated">1<' in after


def test_the_overviews_counters_and_panels_are_declared_live(reviewer: Client) -> None:
    page = reviewer.get("/").content.decode()
    for key in ("turns_unrated", "feedback_count", "pending_proposals"):
        assert f'data-live-value="{key}"' in page
    assert 'data-live-region="components"' in page and 'data-live-region="history"' in page
    assert "learnportal/live.js" in page


def test_an_annotators_overview_offers_no_proposals_they_cannot_decide(
    annotator: Client, reviewer: Client
) -> None:
    page = annotator.get("/").content.decode()
    assert "proposals awaiting review" not in page
    assert 'data-live-value="pending_proposals"' not in page
    assert 'href="/plans/"' not in page
    assert "proposals awaiting review" in reviewer.get("/").content.decode()
