"""Which new version of a rubric its answers allow.

The rule, for each question of the old version that has answers: the new version keeps it
(its key), of the same kind, and takes every answer the old one took, so that no stored answer
comes to mean something else or to fall outside its question. So:

- `numeric`: its range may widen, never narrow; a continuous question stays continuous, and a
  stepped one keeps every value of its old grid (the new step divides the old one, and the old
  min is on the new grid), or becomes continuous;
- `categorical`: it keeps every option (new ones may come), `multiple` and `ordered` as they
  were, and when ordered its old options in their old order (new ones may go anywhere);
- `text`: its `max_length` may grow, never shrink; `spans`: it keeps every label.

A question keeps what it is asked of: a comparison's candidates, or turns (`candidates`).
Anything else may change: its label, description, hotkeys, `required`, and `retired` (a question
with answers is retired, not removed). A question without answers may change in any way or go.
"""

from __future__ import annotations

from feedback.rubrics.questions import (
    AnyQuestion,
    CategoricalQuestion,
    NumericQuestion,
    Rubric,
    SpansQuestion,
    TextQuestion,
    on_grid,
)
from learnportal_protocol.errors import LearnError, conflict, detail

# A version as a person sends it (a form's hidden field, ?version=): more digits than any
# version has, and it is none.
VERSION_DIGITS = 9


def rubric_change_refusal(old: Rubric, new: Rubric, answered: set[str]) -> LearnError | None:
    """`conflict` naming each question with answers (`answered`: their keys) that `new` drops
    or changes beyond the rule above, with details `["questions", key]`; None if it may."""
    successors = new.by_key()
    reasons = {
        question.key: reason
        for question in old.questions
        if question.key in answered
        and (reason := _change_refusal(question, successors.get(question.key)))
    }
    if not reasons:
        return None
    return conflict(
        f"Questions with answers may be retired, not removed nor changed so: {', '.join(reasons)}.",
        [detail(["questions", key], f"{key} has answers: {why}") for key, why in reasons.items()],
    )


def _change_refusal(old: AnyQuestion, new: AnyQuestion | None) -> str | None:
    if new is None:
        return "it may be retired, not removed"
    if new.kind != old.kind:
        return f"its kind may not change ({old.kind} to {new.kind})"
    if new.candidates != old.candidates:
        return "whether it is asked of a comparison's candidates may not change"
    if isinstance(old, NumericQuestion) and isinstance(new, NumericQuestion):
        return _numeric_refusal(old, new)
    if isinstance(old, CategoricalQuestion) and isinstance(new, CategoricalQuestion):
        return _categorical_refusal(old, new)
    if isinstance(old, TextQuestion) and isinstance(new, TextQuestion):
        return (
            "its max_length may not shrink" if new.answer_length() < old.answer_length() else None
        )
    if isinstance(old, SpansQuestion) and isinstance(new, SpansQuestion):
        return _lost(old.options, new.options, "labels")
    return None


def _numeric_refusal(old: NumericQuestion, new: NumericQuestion) -> str | None:
    if new.min > old.min or new.max < old.max:
        return "its range may widen, not narrow"
    if new.step is None:
        return None
    if old.step is None:
        return "it takes any value in its range, so it may not gain a step"
    if not (on_grid(old.step, new.step) and on_grid(old.min - new.min, new.step)):
        return "its step must keep every value of its old grid"
    return None


def _categorical_refusal(old: CategoricalQuestion, new: CategoricalQuestion) -> str | None:
    if (new.multiple, new.ordered) != (old.multiple, old.ordered):
        return "multiple and ordered may not change"
    lost = _lost(old.options, new.options, "options")
    if lost is not None:
        return lost
    if old.ordered and [o for o in new.options if o in old.options] != old.options:
        return "its options may not change order"
    return None


def _lost(old: list[str], new: list[str], noun: str) -> str | None:
    gone = [option for option in old if option not in new]
    return f"it may not lose {noun} ({', '.join(map(repr, gone))})" if gone else None
