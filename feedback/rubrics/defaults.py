"""The rubric a project has until its managers write one: the spec's five dimensions, each a
numeric question over the range a feedback's `score` takes, in the protocol's order.

The questions have no step: `learn/feedback` takes any score from -1 to 1 (the protocol's
`Score`, a float), so a person's rating on the default rubric may be any value an agent may
send. None is required, as a rating from the page rates one dimension or several.
"""

from __future__ import annotations

from typing import cast

import annotated_types

from feedback.rubrics.questions import NumericQuestion, Rubric
from learnportal_protocol import Feedback, FeedbackDimension


def score_range() -> tuple[float, float]:
    """The lowest and highest `score` a feedback takes, read from the protocol's model."""
    metadata = Feedback.model_fields["score"].metadata
    # Each bound is a number; annotated_types types it only as comparable.
    low = next(cast("float", m.ge) for m in metadata if isinstance(m, annotated_types.Ge))
    high = next(cast("float", m.le) for m in metadata if isinstance(m, annotated_types.Le))
    return float(low), float(high)


def default_rubric() -> Rubric:
    low, high = score_range()
    return Rubric(
        questions=[
            NumericQuestion(
                key=dimension.value,
                label=dimension.value.replace("_", " ").capitalize(),
                min=low,
                max=high,
            )
            for dimension in FeedbackDimension
        ]
    )
