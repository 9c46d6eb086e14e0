"""What an answer scores on the protocol's -1..1 scale: ordered answers linearly from lowest to
highest, and no score for the kinds that order nothing."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.rubrics.questions import rubric_from
from feedback.rubrics.scores import score_of, scores_of

RUBRIC = rubric_from(
    {
        "questions": [
            {"kind": "numeric", "key": "stars", "label": "Stars", "min": 1, "max": 5, "step": 1},
            {"kind": "boolean", "key": "safe", "label": "Safe"},
            {"kind": "categorical", "key": "grade", "label": "Grade",
             "options": ["poor", "fair", "good"], "ordered": True},
            {"kind": "categorical", "key": "topic", "label": "Topic", "options": ["a", "b"]},
            {"kind": "categorical", "key": "tags", "label": "Tags", "options": ["a", "b"],
             "multiple": True},
            {"kind": "text", "key": "notes", "label": "Notes"},
            {"kind": "spans", "key": "errors", "label": "Errors", "options": ["x"]},
        ]
    }
)  # fmt: skip
QUESTIONS = RUBRIC.by_key()


@pytest.mark.parametrize(
    ("key", "answer", "score"),
    [
        ("stars", 1.0, -1.0),
        ("stars", 3.0, 0.0),
        ("stars", 4.0, 0.5),
        ("stars", 5.0, 1.0),
        ("safe", False, -1.0),
        ("safe", True, 1.0),
        ("grade", "poor", -1.0),
        ("grade", "fair", 0.0),
        ("grade", "good", 1.0),
    ],
)
def test_an_ordered_answer_scores_linearly_from_lowest_to_highest(
    key: str, answer: Any, score: float
) -> None:
    assert score_of(QUESTIONS[key], answer) == score


@pytest.mark.parametrize(
    ("key", "answer"),
    [("topic", "a"), ("tags", ["a"]), ("notes", "hi"), ("errors", [])],
)
def test_the_kinds_that_order_nothing_have_no_score(key: str, answer: Any) -> None:
    assert score_of(QUESTIONS[key], answer) is None


def test_the_scores_of_a_rating_are_in_the_rubrics_order_and_skip_the_unscored() -> None:
    answers = {"notes": "x", "grade": "good", "topic": "b", "stars": 2.0}
    assert list(scores_of(RUBRIC, answers).items()) == [("stars", -0.5), ("grade", 1.0)]
