"""The judging page with the rubric's questions of candidates: under each response its own
fields (no hotkeys: keys 1-5 are the preference's), sent with the judgment, each refusal beside
its candidate's field and nothing stored."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from feedback.comparisons.models import Judgment
from feedback.pages.rubric_form import candidate_prefix
from tests.feedback.comparisons.test_candidate_questions import FACTUAL, OVERALL, TONE, rubric_put
from tests.feedback.pages.test_compare_page import judge, one, order_for, soup, submit, two
from tests.harness import Actor, human_actor

if TYPE_CHECKING:
    from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def aria(ann: Actor) -> Client:
    lead = human_actor("lead", "manager")
    hotkeyed = {**TONE, "hotkeys": ["d", "w"]}
    assert rubric_put(lead, OVERALL, FACTUAL, hotkeyed).status_code in (200, 201)
    return ann.browser()


def name(candidate: str, key: str) -> str:
    return candidate_prefix(candidate) + key


def test_each_candidate_shows_its_own_fields_of_the_form_without_hotkeys(
    agent: Actor, aria: Client
) -> None:
    (pk,) = submit(agent, two("c-1"))
    page = soup(aria.get("/compare/"))
    first, second = order_for(pk, "ann")
    sections = page.select(".candidate")
    for section, candidate in zip(sections, (first, second), strict=True):
        inputs = section.select(".candidate-questions input")
        assert {i["name"] for i in inputs} == {name(candidate, "factual"), name(candidate, "tone")}
        assert {i["form"] for i in inputs} == {"judge-form"}
        assert not section.select("[data-hotkey], [data-hotkeys]")
    assert not page.select(f"[name='{name(first, 'overall')}']")  # a question of turns


def test_the_answers_are_stored_with_the_judgment(agent: Actor, aria: Client) -> None:
    (pk,) = submit(agent, two("c-1"))
    aria.get("/compare/")
    first, second = order_for(pk, "ann")
    fields = {
        name(first, "factual"): "yes",
        name(first, "tone"): "warm",
        name(second, "factual"): "no",
    }
    assert judge(aria, pk, preference="-1", **fields).status_code == 302
    stored = Judgment.objects.get()
    assert stored.answers == {"factual": {first: True, second: False}, "tone": {first: "warm"}}


def test_a_missing_answer_is_refused_beside_its_candidates_field_and_kept_as_sent(
    agent: Actor, aria: Client
) -> None:
    (pk,) = submit(agent, two("c-1"))
    aria.get("/compare/")
    first, second = order_for(pk, "ann")
    sent = {name(first, "factual"): "yes", name(first, "tone"): "dry"}
    page = soup(judge(aria, pk, preference="2", rationale="B is right", **sent), 400)
    assert not Judgment.objects.exists()
    error = one(page, f"#{name(second, 'factual')}-error").get_text()
    assert "required" in error
    assert one(page, f"input[name='{name(first, 'tone')}'][value=dry]").has_attr("checked")
    assert one(page, "input[name=preference][value='2']").has_attr("checked")
    assert one(page, "#rationale").get_text() == "B is right"


def test_a_value_of_no_option_is_refused_beside_its_field(agent: Actor, aria: Client) -> None:
    (pk,) = submit(agent, two("c-1"))
    aria.get("/compare/")
    first, second = order_for(pk, "ann")
    sent = {name(first, "factual"): "yes", name(second, "factual"): "no"}
    sent[name(second, "tone")] = "loud"
    page = soup(judge(aria, pk, preference="0", **sent), 400)
    assert one(page, f"#{name(second, 'tone')}-error").get_text()
    assert not Judgment.objects.exists()
