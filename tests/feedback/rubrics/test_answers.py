"""Answers checked against a rubric: each refusal `invalid` at `["answers", key]`, naming the
key; what is taken comes back normalised."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.rubrics.answers import answers_clean, merged
from feedback.rubrics.questions import Rubric, rubric_from
from learnportal_protocol.errors import ErrorCode, LearnError

RESPONSE = "The sky is green and the sea is dry."  # 36 characters
RUBRIC = rubric_from(
    {
        "questions": [
            {"kind": "numeric", "key": "score", "label": "Score", "min": -1, "max": 1, "step": 0.1},
            {"kind": "numeric", "key": "free", "label": "Free", "min": 0, "max": 10},
            {
                "kind": "categorical",
                "key": "grade",
                "label": "Grade",
                "options": ["low", "mid", "high"],
                "ordered": True,
                "required": True,
            },
            {
                "kind": "categorical",
                "key": "tags",
                "label": "Tags",
                "options": ["x", "y", "z"],
                "multiple": True,
            },
            {"kind": "boolean", "key": "safe", "label": "Safe"},
            {"kind": "text", "key": "note", "label": "Note", "max_length": 20},
            {"kind": "spans", "key": "errors", "label": "Errors", "options": ["wrong", "odd"]},
            {"kind": "boolean", "key": "old", "label": "Old", "retired": True, "required": True},
        ]
    }
)


def clean(**answers: Any) -> dict[str, Any]:
    return answers_clean(RUBRIC, {"grade": "mid", **answers}, response=RESPONSE)


def refusal(answers: Any, rubric: Rubric = RUBRIC) -> LearnError:
    with pytest.raises(LearnError) as caught:
        answers_clean(rubric, answers, response=RESPONSE)
    assert caught.value.code is ErrorCode.INVALID
    return caught.value


def refused(**answers: Any) -> str:
    """The one refusal's sentence, checked to be at ["answers", key] of the one key sent."""
    [(key, _)] = answers.items()
    [line] = refusal({"grade": "mid", **answers}).details
    assert line["loc"] == ["answers", key]
    assert line["msg"].startswith(f"{key}: ")
    return str(line["msg"])


def test_it_takes_an_answer_of_every_kind_and_normalises_it() -> None:
    spans = [{"start": 4, "end": 7, "label": "wrong"}, {"start": 0, "end": 3, "label": "odd"}]
    answers = clean(score=1, free=3.25, tags=["z", "x", "z"], safe=False, note="ok", errors=spans)
    assert answers == {
        "grade": "mid",
        "score": 1.0,
        "free": 3.25,
        "tags": ["x", "z"],
        "safe": False,
        "note": "ok",
        "errors": [
            {"start": 0, "end": 3, "label": "odd"},
            {"start": 4, "end": 7, "label": "wrong"},
        ],
    }
    assert type(answers["score"]) is float


def test_null_and_blank_text_are_no_answer() -> None:
    assert clean(score=None, note="   ") == {"grade": "mid"}


def test_it_refuses_a_key_no_question_has() -> None:
    assert "no question of this rubric" in refused(colour="red")


def test_it_quotes_a_long_unknown_key_bounded() -> None:
    [line] = refusal({"grade": "mid", "k" * 5000: 1}).details
    assert len(line["msg"]) < 200


def test_it_refuses_an_answer_to_a_retired_question() -> None:
    assert "retired" in refused(old=True)


def test_it_refuses_a_missing_required_answer_but_not_a_retired_one() -> None:
    [line] = refusal({}).details
    assert line == {"loc": ["answers", "grade"], "msg": "grade: the question is required"}
    assert refusal({"grade": None}).details == [line]


def test_it_refuses_more_answers_than_questions() -> None:
    answers = {f"k{i}": 1 for i in range(len(RUBRIC.questions) + 1)}
    assert [line["loc"] for line in refusal(answers).details] == [["answers"]]


def test_it_refuses_answers_that_are_not_an_object() -> None:
    assert [line["loc"] for line in refusal(["grade"]).details] == [["answers"]]


def test_it_names_every_bad_answer_at_once_and_changes_nothing() -> None:
    answers = {"score": 2, "safe": "yes", "grade": "top"}
    error = refusal(answers)
    assert [line["loc"] for line in error.details] == [
        ["answers", "score"],
        ["answers", "safe"],
        ["answers", "grade"],
    ]
    assert error.message.startswith("3 fields are invalid: answers.score: score: 2 is outside")
    assert answers == {"score": 2, "safe": "yes", "grade": "top"}


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("0.5", "a number"),
        (True, "a number"),
        (10**400, "finite"),
        (1.1, "outside [-1, 1]"),
        (-1.5, "outside"),
        (0.15, "not -1 plus a whole number of 0.1"),
    ],
)
def test_it_refuses_a_number_of_the_wrong_type_out_of_range_or_off_the_step(
    value: Any, said: str
) -> None:
    assert said in refused(score=value)


@pytest.mark.parametrize("value", [-1, -0.7, 0.3, 0.30000000000000004, 1])
def test_it_takes_a_number_on_the_step_within_rounding(value: float) -> None:
    assert clean(score=value)["score"] == value


def test_a_question_without_a_step_takes_any_value_in_range() -> None:
    assert clean(free=2.718281828)["free"] == 2.718281828
    assert "outside" in refused(free=10.001)


@pytest.mark.parametrize(
    ("value", "said"),
    [("top", "'top' is not one of its options"), (["low"], "not a list"), (1, "a string")],
)
def test_it_refuses_a_choice_not_among_the_options(value: Any, said: str) -> None:
    [line] = refusal({"grade": value}).details
    assert line["loc"] == ["answers", "grade"] and said in line["msg"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("x", "a list of its options"),
        (["x", "w"], "not among its options: 'w'"),
        (["x", 1], "not among its options: '1'"),
        (["x", "x", "y", "z"], "at most 3 options"),
    ],
)
def test_it_refuses_a_multiple_choice_not_a_list_of_options(value: Any, said: str) -> None:
    assert said in refused(tags=value)


def test_an_empty_multiple_choice_is_an_answer() -> None:
    assert clean(tags=[])["tags"] == []


@pytest.mark.parametrize("value", [1, 0, "true", [True]])
def test_it_refuses_a_boolean_that_is_not_true_or_false(value: Any) -> None:
    assert "true or false" in refused(safe=value)


@pytest.mark.parametrize(
    ("value", "said"), [(5, "a string"), ("x" * 21, "at most 20 characters"), ("a\x00", "NUL")]
)
def test_it_refuses_a_text_of_the_wrong_type_too_long_or_with_nul(value: Any, said: str) -> None:
    assert said in refused(note=value)


def test_a_text_answer_is_bounded_by_the_setting_too(settings: Any) -> None:
    settings.LEARNPORTAL_RUBRIC_MAX_TEXT = 5
    assert "at most 5 characters" in refused(note="x" * 6)


@pytest.mark.parametrize(
    ("spans", "said"),
    [
        ({"start": 0, "end": 1, "label": "odd"}, "a list of"),
        ([[0, 1, "odd"]], "span 0 is not"),
        ([{"start": 0, "end": 1}], "span 0 is not"),
        ([{"start": 0, "end": 1, "label": "odd", "note": ""}], "span 0 is not"),
        (
            [{"start": 0, "end": 1, "label": "odd"}, {"start": "0", "end": 1, "label": "odd"}],
            "span 1: start and end are whole",
        ),
        ([{"start": False, "end": 1, "label": "odd"}], "whole numbers"),
        ([{"start": 3, "end": 3, "label": "odd"}], "0 <= start < end <= 36"),
        ([{"start": 5, "end": 2, "label": "odd"}], "start < end"),
        ([{"start": -1, "end": 2, "label": "odd"}], "0 <= start"),
        ([{"start": 30, "end": 37, "label": "odd"}], "end <= 36"),
        ([{"start": 0, "end": 2, "label": "bad"}], "'bad' is not one of its labels"),
    ],
)
def test_it_refuses_a_span_not_within_the_response_or_not_labelled(spans: Any, said: str) -> None:
    assert said in refused(errors=spans)


def test_it_refuses_more_spans_than_the_setting_allows(settings: Any) -> None:
    settings.LEARNPORTAL_RUBRIC_MAX_SPANS = 2
    spans = [{"start": i, "end": i + 1, "label": "odd"} for i in range(3)]
    assert "at most 2 spans" in refused(errors=spans)


def test_spans_of_one_label_that_overlap_or_touch_become_one() -> None:
    spans = [
        {"start": 10, "end": 14, "label": "odd"},
        {"start": 0, "end": 5, "label": "odd"},
        {"start": 3, "end": 8, "label": "odd"},
        {"start": 8, "end": 9, "label": "odd"},
        {"start": 2, "end": 4, "label": "wrong"},
    ]
    assert clean(errors=spans)["errors"] == [
        {"start": 0, "end": 9, "label": "odd"},
        {"start": 2, "end": 4, "label": "wrong"},
        {"start": 10, "end": 14, "label": "odd"},
    ]


def test_merged_keeps_apart_what_neither_overlaps_nor_touches() -> None:
    assert merged([(5, 6, "a"), (0, 4, "a"), (0, 4, "a")]) == [(0, 4, "a"), (5, 6, "a")]
