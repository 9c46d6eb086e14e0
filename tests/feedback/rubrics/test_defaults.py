"""The default rubric: the spec's five dimensions, numeric over the range a score takes."""

from __future__ import annotations

import pytest

from feedback.rubrics.answers import answers_clean
from feedback.rubrics.defaults import default_rubric, score_range
from feedback.rubrics.questions import NumericQuestion, rubric_from
from learnportal_protocol import Feedback, FeedbackDimension
from learnportal_protocol.errors import LearnError


def test_it_asks_the_five_dimensions_in_the_protocols_order() -> None:
    keys = [q.key for q in default_rubric().questions]
    assert keys == ["correctness", "helpfulness", "safety", "tone", "plan_quality"]
    assert keys == [dimension.value for dimension in FeedbackDimension]


def test_each_is_numeric_from_minus_one_to_one_with_any_value_between() -> None:
    questions = default_rubric().questions
    assert all(isinstance(q, NumericQuestion) for q in questions)
    assert {(q.min, q.max, q.step) for q in questions if isinstance(q, NumericQuestion)} == {
        (-1.0, 1.0, None)
    }
    assert score_range() == (-1.0, 1.0)


@pytest.mark.parametrize("score", [-1.0, -0.333, 0.0, 0.123456789, 1.0])
def test_it_takes_every_score_learn_feedback_takes(score: float) -> None:
    Feedback.model_validate({"polarity": "positive", "score": score})
    assert answers_clean(default_rubric(), {"tone": score}, response="") == {"tone": score}


def test_it_refuses_a_score_learn_feedback_refuses() -> None:
    with pytest.raises(ValueError):
        Feedback.model_validate({"polarity": "positive", "score": 1.01})
    with pytest.raises(LearnError):
        answers_clean(default_rubric(), {"tone": 1.01}, response="")


def test_it_reads_back_as_a_rubric_sent_as_json() -> None:
    rubric = default_rubric()
    assert rubric_from(rubric.model_dump(mode="json")) == rubric
    assert [q.label for q in rubric.questions][-1] == "Plan quality"
