"""A project's own rubric on the queue and the rate page: a fieldset a question, as its kind
asks, read back into the answers `POST /api/ratings/` takes and judged by the same service;
refusals next to their question, nothing stored; a project without one keeps the
five-dimension form (docs/contract.md, "Teams: projects and rubrics")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.accounts.models import User
from core.projects.services import project_add
from feedback.models import Feedback, Lease, Rating, Turn
from tests.builders import turn
from tests.harness import human_actor, token_actor

pytestmark = pytest.mark.django_db

RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5, "step": 1,
     "required": True, "hotkeys": ["1", "2", "3", "4", "5"], "min_label": "Poor",
     "max_label": "Great"},
    {"kind": "categorical", "key": "tags", "label": "Tags", "options": ["terse", "wrong"],
     "multiple": True, "hotkeys": ["t", "w"]},
    {"kind": "boolean", "key": "safe", "label": "Safe", "hotkeys": ["y", "n"]},
    {"kind": "text", "key": "notes", "label": "Notes", "description": "Anything else"},
    {"kind": "spans", "key": "errors", "label": "Errors", "options": ["factual"],
     "hotkeys": ["f"]},
]  # fmt: skip


@pytest.fixture
def alpha_turn(db: None) -> Turn:
    project_add(slug="alpha", name="Alpha")
    lead = human_actor("lead", "manager", project="alpha")
    assert lead.rest("put", "/api/projects/alpha/rubric/", {"questions": RUBRIC}).status_code == 200
    agent = token_actor("alpha-agent", "agent", project="alpha")
    body = {"turns": [{"correlation_id": "a-1", "rated_turn": turn()}]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    return Turn.objects.get(correlation_id="a-1")


@pytest.fixture
def aria(alpha_turn: Turn) -> Client:
    human_actor("aria", "annotator", project="alpha")
    client = Client()
    client.force_login(User.objects.get(username="aria"))
    return client


def answers_posted(turn: Turn, **answers: Any) -> dict[str, Any]:
    return {"do": "rate", "turn": str(turn.pk), "rubric_version": "2", **answers}


def test_the_queue_shows_each_question_of_the_rubric_as_its_kind_asks(
    aria: Client, alpha_turn: Turn
) -> None:
    page = aria.get("/queue/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="rubric-form"' in html and 'id="rating-form"' not in html
    kinds = {each.question.key: each.control for each in page.context["rubric"].fields}
    assert kinds == {
        "quality": "choices",
        "tags": "choices",
        "safe": "choices",
        "notes": "text",
        "errors": "spans",
    }
    assert html.count('type="radio" name="q-quality"') == 5
    assert html.count('type="checkbox" name="q-tags"') == 2
    assert "Poor" in html and "Great" in html and "Anything else" in html
    assert "Tags: t terse, w wrong" in html  # the shortcuts list


def test_a_numeric_question_of_many_steps_is_a_number_field_not_span_marks(
    aria: Client, alpha_turn: Turn
) -> None:
    percent = {
        "kind": "numeric",
        "key": "percent",
        "label": "Percent",
        "min": 0,
        "max": 100,
        "step": 1,
    }
    lead = human_actor("lead-2", "manager", project="alpha")
    changed = lead.rest("put", "/api/projects/alpha/rubric/", {"questions": [*RUBRIC, percent]})
    assert changed.status_code == 200
    html = aria.get("/queue/").content.decode()
    assert 'type="number" name="q-percent"' in html
    assert 'step="1.0"' in html or 'step="1"' in html
    assert 'name="q-percent" value="" class="spans-value"' not in html


def test_a_rating_from_the_queue_is_stored_as_the_api_would_store_it(
    aria: Client, alpha_turn: Turn
) -> None:
    aria.get("/queue/")
    assert Lease.objects.filter(username="aria").exists()
    spans = [{"start": 0, "end": 4, "label": "factual"}]
    sent = answers_posted(
        alpha_turn,
        **{"q-quality": "4", "q-safe": "no", "q-notes": "fine", "q-errors": json.dumps(spans)},
        comment="ok",
    )
    sent_tags = {"q-tags": ["wrong", "terse"]}
    response = aria.post("/queue/", {**sent, **sent_tags})
    assert response.status_code == 302, response.content.decode()[:2000]
    rating = Rating.objects.get()
    assert rating.answers == {
        "quality": 4.0,
        "tags": ["terse", "wrong"],
        "safe": False,
        "notes": "fine",
        "errors": spans,
    }
    assert rating.rubric_version == 2  # the first a project writes: after the default, 1
    assert not Lease.objects.filter(username="aria").exists()
    assert Turn.objects.get(pk=alpha_turn.pk).ratings_needed == 0


def test_a_refused_rating_says_why_next_to_each_question_keeps_what_was_sent_and_stores_nothing(
    aria: Client, alpha_turn: Turn
) -> None:
    aria.get("/queue/")
    sent = answers_posted(alpha_turn, **{"q-safe": "maybe", "q-notes": "kept", "q-errors": "[{"})
    page = aria.post("/queue/", sent)
    assert page.status_code == 400
    errors = {each.question.key: each.error for each in page.context["rubric"].fields}
    assert "required" in errors["quality"]
    assert "true or false" in errors["safe"]
    assert errors["errors"]
    assert errors["tags"] == "" and errors["notes"] == ""
    assert "kept" in page.content.decode()
    assert not Rating.objects.exists() and not Feedback.objects.exists()
    assert Lease.objects.filter(username="aria").exists()


def test_a_form_drawn_from_a_rubric_changed_since_is_refused_and_drawn_again(
    aria: Client, alpha_turn: Turn
) -> None:
    aria.get("/queue/")
    lead = human_actor("lead2", "manager", project="alpha")
    more = [*RUBRIC, {"kind": "boolean", "key": "cited", "label": "Cites its sources"}]
    assert lead.rest("put", "/api/projects/alpha/rubric/", {"questions": more}).status_code == 200
    page = aria.post("/queue/", answers_posted(alpha_turn, **{"q-quality": "4"}))
    assert page.status_code == 409
    form = page.context["rubric"]
    assert "version 3" in form.error
    assert form.version == 3 and "cited" in {each.question.key for each in form.fields}
    assert 'name="rubric_version" value="3"' in page.content.decode()
    assert not Rating.objects.exists() and not Feedback.objects.exists()


@pytest.mark.parametrize("version", ["two", "-1", "1" * 10])
def test_a_bad_rubric_version_in_the_form_is_refused_and_stores_nothing(
    aria: Client, alpha_turn: Turn, version: str
) -> None:
    aria.get("/queue/")
    sent = {**answers_posted(alpha_turn, **{"q-quality": "4"}), "rubric_version": version}
    page = aria.post("/queue/", sent)
    assert page.status_code == 400
    assert "rubric_version" in page.context["rubric"].error
    assert not Rating.objects.exists()


def test_the_rate_page_rates_on_the_rubric_too(aria: Client, alpha_turn: Turn) -> None:
    page = aria.get(f"/turns/{alpha_turn.pk}/")
    assert 'id="rubric-form"' in page.content.decode()
    response = aria.post(
        f"/turns/{alpha_turn.pk}/", {"rubric_version": "2", "q-quality": "2", "q-safe": "yes"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/turns/{alpha_turn.pk}/rated/"
    assert Rating.objects.get().answers == {"quality": 2.0, "safe": True}


def test_a_project_without_its_own_rubric_rates_on_the_five_dimension_form(db: None) -> None:
    agent = token_actor("agent-d", "agent")
    assert (
        agent.rest(
            "post", "/api/turns/", {"turns": [{"correlation_id": "d-1", "rated_turn": turn()}]}
        ).status_code
        == 201
    )
    human_actor("dana", "annotator")
    client = Client()
    client.force_login(User.objects.get(username="dana"))
    html = client.get("/queue/").content.decode()
    assert 'id="rating-form"' in html and 'id="rubric-form"' not in html
