"""What an answer says on the protocol's scale: a feedback's `score`, from -1 to 1.

A rating is stored as human feedback too (feedback.services.ratings), so that the queue, the
stats, routing and the exports read it as they read any rating. Its answers that order things
have a score, lowest to highest mapped linearly onto the score's range: a `numeric` answer from
its min to its max, a `boolean` false to true, an `ordered` single `categorical` option from the
first to the last. The others (`text`, `spans`, unordered or multiple choices) have none.
"""

from __future__ import annotations

from typing import Any

from feedback.rubrics.defaults import score_range
from feedback.rubrics.questions import (
    AnyQuestion,
    BooleanQuestion,
    CategoricalQuestion,
    NumericQuestion,
    Rubric,
)
from learnportal_protocol import FeedbackDimension

DIMENSIONS = frozenset(dimension.value for dimension in FeedbackDimension)


def score_of(question: AnyQuestion, answer: Any) -> float | None:
    """The score of one checked answer (feedback.rubrics.answers), or None if its kind has none."""
    match question:
        case NumericQuestion():
            return _scaled(float(answer) - question.min, question.max - question.min)
        case BooleanQuestion():
            return _scaled(1.0 if answer else 0.0, 1.0)
        case CategoricalQuestion(ordered=True, multiple=False):
            return _scaled(question.options.index(answer), len(question.options) - 1)
        case _:
            return None


def scores_of(rubric: Rubric, answers: dict[str, Any]) -> dict[str, float]:
    """The score of each answer that has one, in the rubric's order."""
    return {
        question.key: score
        for question in rubric.questions
        if question.key in answers
        and (score := score_of(question, answers[question.key])) is not None
    }


def feedback_keys(scores: dict[str, float]) -> list[str]:
    """The answers of a rating (their scores, in the rubric's order) stored as feedback rows:
    each one whose key is a protocol dimension, or, when none is, the first. The first of them
    is the rating's lead: its row carries the comment and the correction, and speaks for the
    rating where an export takes one line a rating."""
    dimensions = [key for key in scores if key in DIMENSIONS]
    return dimensions or list(scores)[:1]


def _scaled(offset: float, span: float) -> float:
    low, high = score_range()
    return min(high, max(low, low + (high - low) * offset / span))
