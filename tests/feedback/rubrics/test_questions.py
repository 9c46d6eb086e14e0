"""A rubric read from JSON: every kind of question, and each bad field named where it is."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.rubrics.questions import (
    MAX_HOTKEYS,
    MAX_STEPS,
    NumericQuestion,
    Rubric,
    TextQuestion,
    rubric_from,
)
from learnportal_protocol.errors import ErrorCode, LearnError


def numeric(**fields: Any) -> dict[str, Any]:
    return {"kind": "numeric", "key": "score", "label": "Score", "min": -1, "max": 1, **fields}


def categorical(**fields: Any) -> dict[str, Any]:
    return {"kind": "categorical", "key": "pick", "label": "Pick", "options": ["a", "b"], **fields}


EVERY_KIND = [
    numeric(step=0.5, min_label="bad", max_label="good", hotkeys=["1"]),
    categorical(options=["low", "mid", "high"], ordered=True, required=True),
    categorical(key="tags", options=["x", "y", "z"], multiple=True),
    {"kind": "boolean", "key": "safe", "label": "Safe?", "description": "Would you ship it?"},
    {"kind": "text", "key": "note", "label": "Note", "max_length": 500},
    {"kind": "spans", "key": "errors", "label": "Errors", "options": ["wrong", "unsafe"]},
]


def refusal(data: Any) -> LearnError:
    with pytest.raises(LearnError) as caught:
        rubric_from(data)
    assert caught.value.code is ErrorCode.INVALID
    return caught.value


def places(data: Any) -> list[list[str | int]]:
    return [line["loc"] for line in refusal(data).details]


def one_question(question: dict[str, Any]) -> dict[str, Any]:
    return {"questions": [question]}


def test_it_reads_a_question_of_every_kind_and_dumps_what_it_read() -> None:
    rubric = rubric_from({"questions": EVERY_KIND})
    assert [q.kind for q in rubric.questions] == [q["kind"] for q in EVERY_KIND]
    assert rubric_from(rubric.model_dump(mode="json")) == rubric


def test_it_fills_the_defaults_of_the_common_fields() -> None:
    question = rubric_from(one_question(numeric())).questions[0]
    assert (question.description, question.required, question.retired) == ("", False, False)
    assert question.hotkeys == []
    assert isinstance(question, NumericQuestion) and question.step is None


@pytest.mark.parametrize("key", ["Score", "1st", "_x", "a-b", "", "a" * 41, "é"])
def test_it_refuses_a_key_that_is_not_slug_like(key: str) -> None:
    assert places(one_question(numeric(key=key))) == [["questions", 0, "key"]]


def test_it_takes_a_key_of_forty_characters() -> None:
    assert rubric_from(one_question(numeric(key="a" * 40))).questions[0].key == "a" * 40


@pytest.mark.parametrize("label", ["", "   ", "x" * 121, "two\nlines"])
def test_it_refuses_a_label_empty_blank_too_long_or_with_control_characters(label: str) -> None:
    assert places(one_question(numeric(label=label))) == [["questions", 0, "label"]]


def test_it_refuses_a_description_over_two_thousand_characters() -> None:
    assert places(one_question(numeric(description="x" * 2001))) == [
        ["questions", 0, "description"]
    ]


def test_it_refuses_a_field_the_kind_does_not_have() -> None:
    assert places(one_question(numeric(options=["a", "b"]))) == [["questions", 0, "options"]]


def test_it_refuses_a_boolean_field_given_as_a_number() -> None:
    assert places(one_question(numeric(required=1))) == [["questions", 0, "required"]]


@pytest.mark.parametrize(
    ("question", "said"),
    [({"kind": "slider", "key": "a", "label": "A"}, "'slider' is no kind"), ({}, "no kind")],
)
def test_it_refuses_an_unknown_or_missing_kind_naming_the_kinds(
    question: dict[str, Any], said: str
) -> None:
    [line] = refusal(one_question(question)).details
    assert line["loc"] == ["questions", 0, "kind"]
    assert said in line["msg"] and "numeric, categorical, boolean, text, spans" in line["msg"]


def test_it_refuses_a_question_that_is_not_an_object() -> None:
    assert places({"questions": ["score"]}) == [["questions", 0]]


def test_it_names_every_bad_field_of_every_question_at_once() -> None:
    data = {"questions": [numeric(key="A"), categorical(options=["a"]), numeric(min=2)]}
    assert places(data) == [
        ["questions", 0, "key"],
        ["questions", 1, "options"],
        ["questions", 2, "max"],
    ]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"min": 1, "max": 1}, "max"),
        ({"min": 2, "max": 1}, "max"),
        ({"step": 0}, "step"),
        ({"step": -0.5}, "step"),
        ({"step": 0.3}, "step"),
        ({"step": 3}, "step"),
        ({"step": 2 / (MAX_STEPS + 1)}, "step"),
        ({"step": 1e-300}, "step"),
        ({"min": -1e10}, "min"),
        ({"max": "1"}, "max"),
    ],
)
def test_it_refuses_a_numeric_range_or_step_that_makes_no_grid(
    fields: dict[str, Any], field: str
) -> None:
    assert places(one_question(numeric(**fields))) == [["questions", 0, field]]


@pytest.mark.parametrize("step", [0.1, 0.25, 2 / MAX_STEPS, 2, None])
def test_it_takes_a_step_that_divides_the_range_within_rounding(step: float | None) -> None:
    question = rubric_from(one_question(numeric(step=step))).questions[0]
    assert isinstance(question, NumericQuestion) and question.step == step


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"options": ["a"]}, "options"),
        ({"options": ["a", "a"]}, "options"),
        ({"options": ["a", " "]}, "options"),
        ({"options": ["a", "x" * 121]}, "options"),
        ({"options": "a,b"}, "options"),
        ({"ordered": True, "multiple": True}, "ordered"),
    ],
)
def test_it_refuses_categorical_options_that_are_too_few_repeated_blank_or_long(
    fields: dict[str, Any], field: str
) -> None:
    assert places(one_question(categorical(**fields)))[0][:3] == ["questions", 0, field]


def test_it_refuses_more_options_than_the_setting_allows(settings: Any) -> None:
    settings.LEARNPORTAL_RUBRIC_MAX_OPTIONS = 3
    options = ["a", "b", "c", "d"]
    [line] = refusal(one_question(categorical(options=options))).details
    assert line["loc"] == ["questions", 0, "options"] and "at most 3 options" in line["msg"]
    spans = {"kind": "spans", "key": "s", "label": "S", "options": options}
    assert places(one_question(spans)) == [["questions", 0, "options"]]


def test_it_refuses_a_spans_question_without_labels() -> None:
    spans = {"kind": "spans", "key": "s", "label": "S", "options": []}
    assert places(one_question(spans)) == [["questions", 0, "options"]]


def test_a_text_question_is_bounded_by_the_setting(settings: Any) -> None:
    settings.LEARNPORTAL_RUBRIC_MAX_TEXT = 100
    text = {"kind": "text", "key": "note", "label": "Note"}
    assert places(one_question({**text, "max_length": 101})) == [["questions", 0, "max_length"]]
    assert places(one_question({**text, "max_length": 0})) == [["questions", 0, "max_length"]]
    question = rubric_from(one_question(text)).questions[0]
    assert isinstance(question, TextQuestion) and question.answer_length() == 100


@pytest.mark.parametrize("hotkeys", [["?"], ["g"], ["G"], ["ab"], [""], [" "], ["\n"], ["a", "a"]])
def test_it_refuses_a_hotkey_that_is_not_one_free_printable_key(hotkeys: list[str]) -> None:
    assert places(one_question(numeric(hotkeys=hotkeys)))[0][:3] == ["questions", 0, "hotkeys"]


def test_it_refuses_more_hotkeys_than_a_short_list() -> None:
    hotkeys = [chr(ord("0") + i) for i in range(MAX_HOTKEYS + 1)]
    assert places(one_question(numeric(hotkeys=hotkeys))) == [["questions", 0, "hotkeys"]]
    assert rubric_from(one_question(numeric(hotkeys=hotkeys[:-1]))).questions[0].hotkeys


def test_it_refuses_a_hotkey_another_question_has() -> None:
    data = {"questions": [numeric(hotkeys=["1", "2"]), categorical(hotkeys=["3", "2"])]}
    [line] = refusal(data).details
    assert line["loc"] == ["questions", 1, "hotkeys"] and "'score'" in line["msg"]


def test_it_refuses_a_key_twice_naming_the_second() -> None:
    data = {"questions": [numeric(), categorical(), numeric(label="Again")]}
    [line] = refusal(data).details
    assert line["loc"] == ["questions", 2, "key"] and "question 0" in line["msg"]


def test_it_refuses_a_rubric_without_questions() -> None:
    assert places({"questions": []}) == [["questions"]]
    assert places({}) == [["questions"]]
    assert places({"questions": "all"}) == [["questions"]]


def test_it_refuses_more_questions_than_the_setting_allows(settings: Any) -> None:
    settings.LEARNPORTAL_RUBRIC_MAX_QUESTIONS = 2
    data = {"questions": [numeric(key=f"q{i}") for i in range(3)]}
    [line] = refusal(data).details
    assert line["loc"] == ["questions"] and "at most 2 questions" in line["msg"]


def test_it_refuses_a_field_beside_the_questions() -> None:
    assert places({"questions": [numeric()], "version": 2}) == [["version"]]


def test_the_message_names_the_fields_it_refuses() -> None:
    message = refusal(one_question(numeric(min=3))).message
    assert message.startswith("1 field is invalid: questions[0].max: max (1) must be above min")


def test_a_rubric_made_in_code_is_checked_as_one_read() -> None:
    with pytest.raises(ValueError, match="already the key"):
        Rubric(questions=[NumericQuestion(key="a", label="A", min=0, max=1)] * 2)
