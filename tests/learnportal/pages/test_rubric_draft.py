"""The rubric builder's form read back (learnportal.people.rubric_draft): a rubric shown as its
cards and posted as a browser posts them is the same rubric, each kind's fields and all."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict

from feedback.rubrics.questions import rubric_from
from learnportal.people.rubric_draft import Card, cards_of, cards_sent, draft_data, next_token

EVERY_KIND: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "score", "label": "Score", "min": -0.3, "max": 0.3, "step": 0.1,
     "min_label": "Bad", "max_label": "Good", "hotkeys": ["a", "b"], "required": True},
    {"kind": "numeric", "key": "any", "label": "Any", "min": 0, "max": 1e9},
    {"kind": "categorical", "key": "tags", "label": "Tags", "options": ["x", "y z"],
     "multiple": True, "description": "Pick all\nthat hold"},
    {"kind": "categorical", "key": "grade", "label": "Grade", "options": ["lo", "hi"],
     "ordered": True, "retired": True},
    {"kind": "boolean", "key": "ok", "label": "OK", "step_kinds": ["tool", "llm"]},
    {"kind": "text", "key": "why", "label": "Why", "max_length": 200},
    {"kind": "spans", "key": "marks", "label": "Marks", "options": ["one", "two"]},
]  # fmt: skip


def posted(cards: list[Card]) -> QueryDict:
    """What a browser sends for these cards: each card's fields and its own kind's only."""
    sent = QueryDict(mutable=True)
    for card in cards:
        sent.appendlist("question", card.token)
        fields = [*card.common, *(f for g in card.groups if g["current"] for f in g["fields"])]
        for field in fields:
            if field.widget != "checkbox" or field.checked:
                sent[field.input_name] = field.value
    return sent


def test_every_kind_round_trips_through_the_cards() -> None:
    rubric = rubric_from({"questions": EVERY_KIND})
    cards = cards_sent(posted(cards_of(rubric, set())), set())
    assert rubric_from(draft_data(cards)) == rubric


@pytest.mark.parametrize(
    ("field", "typed", "read"),
    [
        ("step", "", None),
        ("step", " 0.5 ", 0.5),
        ("step", "half", "half"),
        ("max", "inf", "inf"),
        ("hotkeys", " 1  2 ", ["1", "2"]),
        ("step_kinds", " tool  retrieval ", ["tool", "retrieval"]),
        ("min_label", "", None),
    ],
)
def test_a_typed_field_is_read_as_json_would_carry_it(field: str, typed: str, read: Any) -> None:
    sent = QueryDict(mutable=True)
    sent.update({"question": "1", "card-1-kind": "numeric", f"card-1-{field}": typed})
    question = draft_data(cards_sent(sent, set()))["questions"][0]
    assert question[field] == read


def test_a_new_card_takes_the_smallest_token_no_card_has() -> None:
    cards = [Card("1", {}), Card("3", {}), Card("999999", {})]
    assert next_token(cards) == "2"
    assert next_token([]) == "1"
