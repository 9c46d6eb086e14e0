"""A person's answers to a rubric, checked and normalised before anything is stored.

`answers` maps question keys to values (docs/contract.md, "Ratings"): a number in range on the
step for `numeric`, an option (a list of them for `multiple`) for `categorical`, true or false
for `boolean`, a string for `text`, and for `spans` a list of `{"start", "end", "label"}`
within the response. `null`, and a text that is blank, are no answer: left out, as if not
sent (so a required question refuses them).

What comes back: numbers as floats; a multiple choice deduplicated, in the options' order;
spans sorted by (start, end, label), those of one label that overlap or touch merged into one,
since a span marks characters and the characters are what agreement compares.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from feedback.rubrics import bounds
from feedback.rubrics.questions import (
    LABEL_LENGTH,
    AnyQuestion,
    BooleanQuestion,
    CategoricalQuestion,
    NumericQuestion,
    Rubric,
    SpansQuestion,
    TextQuestion,
    on_grid,
)
from learnportal_protocol.errors import cut, detail, invalid
from learnportal_protocol.wire import summarize

if TYPE_CHECKING:
    from feedback.traces.steps import StepKind

SPAN_FIELDS = frozenset({"start", "end", "label"})


class Refused(ValueError):
    """Why one answer is refused: a sentence that the key is put before."""


def answers_clean(
    rubric: Rubric,
    answers: dict[str, Any],
    *,
    response: str | None,
    step_kind: StepKind | None = None,
    candidate: bool = False,
    partial: bool = False,
) -> dict[str, Any]:
    """The answers normalised, or `invalid` with one detail `["answers", key]` for each bad
    one: an unknown or retired key, a question not asked of what is rated (a step of
    `step_kind`, or the whole turn: None; a session, `response` None, is asked what a whole
    turn is but spans; with `candidate`, a comparison's candidate, asked the questions of
    candidates), a missing required answer, a value of the wrong type, out of range, off the
    step, not an option, a span outside `response` (the rated step's output, for a step), a
    text too long. `partial`: no answer is required (a gold item's known answers)."""
    if not isinstance(answers, dict):
        raise invalid("answers must be an object", [detail(["answers"], "must be an object")])
    asked = len(rubric.questions)
    if len(answers) > asked:
        message = f"at most {asked} answers, one a question; got {len(answers)}"
        raise invalid(f"answers: {message}", [detail(["answers"], message)])
    questions = rubric.by_key()
    clean: dict[str, Any] = {}
    details = []
    for key, value in answers.items():
        try:
            question = questions.get(key)
            if question is not None and not _asked(question, step_kind, candidate):
                raise Refused(f"the question is asked of {asked_of_words(question)}")
            if response is None and isinstance(question, SpansQuestion):
                raise Refused("a session has no one response to mark spans in")
            answer = _clean(question, value, response or "")
        except Refused as reason:
            details.append(detail(["answers", key], f"{shown(key)}: {reason}"))
            continue
        if answer is not None:
            clean[key] = answer
    refused = {line["loc"][1] for line in details}
    details += [
        detail(["answers", q.key], f"{q.key}: the question is required")
        for q in rubric.questions
        if q.required
        and not partial
        and not q.retired
        and (q.candidates if candidate else asked_of_rated(q, step_kind, session=response is None))
        and q.key not in clean
        and q.key not in refused
    ]
    if details:
        raise invalid(summarize(details), details)
    return clean


def asked_of_rated(question: AnyQuestion, kind: StepKind | None, *, session: bool) -> bool:
    """Whether a rating of a step of `kind` (None: of the whole turn, or with `session` of the
    session it begins) answers `question`: a session is asked what a whole turn is, but for
    spans (it has no one response to mark)."""
    return question.asked_of(kind) and not (session and isinstance(question, SpansQuestion))


def _asked(question: AnyQuestion, kind: StepKind | None, candidate: bool) -> bool:
    return question.candidates if candidate else question.asked_of(kind)


def asked_of_words(question: AnyQuestion) -> str:
    """What a question is asked of, in words: "the whole turn", "tool and llm steps", "each
    candidate of a comparison"."""
    if question.candidates:
        return "each candidate of a comparison"
    if not question.step_kinds:
        return "the whole turn"
    return f"{' and '.join(kind.value for kind in question.step_kinds)} steps"


def shown(text: Any) -> str:
    """A key or value as a refusal quotes it: bounded, whatever was sent."""
    return cut(text if isinstance(text, str) else repr(text), LABEL_LENGTH)


def _clean(question: AnyQuestion | None, value: Any, response: str) -> Any:
    if question is None:
        raise Refused("no question of this rubric has this key")
    if question.retired:
        raise Refused("the question is retired: it takes no answers")
    if value is None:
        return None
    match question:
        case NumericQuestion():
            return _number(question, value)
        case CategoricalQuestion():
            return _choices(question, value) if question.multiple else _choice(question, value)
        case BooleanQuestion():
            if not isinstance(value, bool):
                raise Refused("the answer is true or false")
            return value
        case TextQuestion():
            return _text(question, value)
        case SpansQuestion():
            return _spans(question, value, response)


def _number(question: NumericQuestion, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Refused("the answer is a number")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise Refused("the answer is a finite number")
    if not question.min <= number <= question.max:
        raise Refused(f"{number:g} is outside [{question.min:g}, {question.max:g}]")
    if not on_grid(number - question.min, question.step):
        raise Refused(
            f"{number:g} is not {question.min:g} plus a whole number of {question.step:g}"
        )
    return number


def _choice(question: CategoricalQuestion, value: Any) -> str:
    if isinstance(value, list):
        raise Refused("the answer is one option, not a list")
    if not isinstance(value, str):
        raise Refused("the answer is one of its options, a string")
    if value not in question.options:
        raise Refused(f"{shown(value)!r} is not one of its options")
    return value


def _choices(question: CategoricalQuestion, value: Any) -> list[str]:
    if not isinstance(value, list):
        raise Refused("the answer is a list of its options")
    if len(value) > len(question.options):
        raise Refused(f"at most {len(question.options)} options; got {len(value)}")
    unknown = [shown(v) for v in value if not isinstance(v, str) or v not in question.options]
    if unknown:
        raise Refused(f"not among its options: {', '.join(map(repr, unknown))}")
    chosen = set(value)
    return [option for option in question.options if option in chosen]


def _text(question: TextQuestion, value: Any) -> str | None:
    if not isinstance(value, str):
        raise Refused("the answer is a string")
    if "\x00" in value:
        raise Refused("the answer may not contain the NUL character (\\u0000)")
    if len(value) > question.answer_length():
        raise Refused(f"at most {question.answer_length()} characters; got {len(value)}")
    return value if value.strip() else None


def _spans(question: SpansQuestion, value: Any, response: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise Refused('the answer is a list of {"start", "end", "label"}')
    if len(value) > bounds.max_spans():
        raise Refused(f"at most {bounds.max_spans()} spans; got {len(value)}")
    spans = [_span(question, index, span, len(response)) for index, span in enumerate(value)]
    return [{"start": start, "end": end, "label": label} for start, end, label in merged(spans)]


def _span(question: SpansQuestion, index: int, span: Any, length: int) -> tuple[int, int, str]:
    if not isinstance(span, dict) or set(span) != SPAN_FIELDS:
        raise Refused(f'span {index} is not {{"start", "end", "label"}}')
    start, end, label = span["start"], span["end"], span["label"]
    if any(isinstance(n, bool) or not isinstance(n, int) for n in (start, end)):
        raise Refused(f"span {index}: start and end are whole numbers")
    if not 0 <= start < end <= length:
        raise Refused(f"span {index}: 0 <= start < end <= {length} (the response's length)")
    if not isinstance(label, str) or label not in question.options:
        raise Refused(f"span {index}: {shown(label)!r} is not one of its labels")
    return start, end, label


def merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Spans sorted by (start, end, label), those of one label that overlap or touch as one."""
    runs: list[tuple[str, list[int]]] = []
    open_runs: dict[str, list[int]] = {}
    for start, end, label in sorted(spans):
        run = open_runs.get(label)
        if run is not None and start <= run[1]:
            run[1] = max(run[1], end)
            continue
        open_runs[label] = [start, end]
        runs.append((label, open_runs[label]))
    return sorted((run[0], run[1], label) for label, run in runs)
