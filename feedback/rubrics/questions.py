"""A rubric and its questions, as pydantic models: a Question is one of five kinds, told apart
by `kind` (docs/contract.md, "Teams: projects and rubrics").

`rubric_from` is how a rubric sent as JSON is read: it names each bad field as
`["questions", i, "<field>"]`, without the kind pydantic puts into a tagged union's places.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self, TypeVar, get_args

from pydantic import (
    AfterValidator,
    Field,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)

from core.projects.models import QUESTION_KEY_PATTERN as KEY_PATTERN
from feedback.rubrics import bounds
from feedback.traces.steps import StepKind
from learnportal_protocol.errors import Loc, cut, detail, invalid
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import NO_CONTROL, NO_NUL, StrictModel
from learnportal_protocol.wire import invalid_from, summarize

Word = TypeVar("Word", bound=str)
LABEL_LENGTH = 120  # a question's label, its end labels and each of its options
DESCRIPTION_LENGTH = 2000
MAX_HOTKEYS = 10
LIST_KEY = "?"  # the key that lists the others, so no question may take it
GUIDELINES_KEY = "g"  # the key that opens and closes the guidelines, in either case
# The rating pages' own keys, which no question may take.
PAGE_KEYS = {LIST_KEY: "lists the hotkeys", GUIDELINES_KEY: "opens the guidelines"}
# A numeric question's bounds: enough for any scale a person rates on, and small enough that
# the grid's arithmetic (below) stays exact to far better than its tolerance.
NUMERIC_LIMIT = 1e9
MAX_STEPS = 1000  # from min to max: what a slider or a row of buttons can show
GRID_TOLERANCE = 1e-9  # relative: 0.1 * 3 is not quite 0.3 in floating point


def whole(count: float) -> bool:
    """Whether `count` (of steps) is a whole number, within the grid's tolerance."""
    return abs(count - round(count)) <= GRID_TOLERANCE * max(1.0, abs(count))


def on_grid(offset: float, step: float | None) -> bool:
    """Whether a value `offset` above a grid's origin lies on it; any value does without a step."""
    return step is None or whole(offset / step)


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("may not be blank")
    return text


def _hotkey(key: str) -> str:
    if not key.isprintable() or key.isspace():
        raise ValueError(f"a hotkey is one printable key, not {key!r}")
    if (does := PAGE_KEYS.get(key.lower())) is not None:
        raise ValueError(f"{key} {does}, so no question may take it")
    return key


def _distinct(values: list[Word]) -> list[Word]:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{cut(value, LABEL_LENGTH)!r} appears twice")
        seen.add(value)
    return values


def _at_most(limit: int, noun: str, items: Any) -> None:
    # Before the items are read one by one, so that a list too long costs nothing to refuse.
    if isinstance(items, list) and len(items) > limit:
        raise ValueError(f"at most {limit} {noun}; got {len(items)}")


Key = Annotated[str, Field(pattern=KEY_PATTERN, description="a-z first, then a-z, 0-9 or _")]
Label = Annotated[
    str,
    Field(min_length=1, max_length=LABEL_LENGTH, pattern=NO_CONTROL),
    AfterValidator(_not_blank),
]
Hotkey = Annotated[str, Field(min_length=1, max_length=1), AfterValidator(_hotkey)]
Bound = Annotated[float, Field(ge=-NUMERIC_LIMIT, le=NUMERIC_LIMIT)]
Options = Annotated[list[Label], AfterValidator(_distinct)]


CANDIDATES_OR_STEPS = "a question is asked of a comparison's candidates or of steps, not both"
NO_CANDIDATE_SPANS = "spans are marked in a turn's response: not asked of candidates"


class QuestionBase(StrictModel):
    key: Key
    label: Label
    description: Annotated[str, Field(max_length=DESCRIPTION_LENGTH, pattern=NO_NUL)] = ""
    required: bool = False
    retired: bool = Field(default=False, description="kept for its answers; takes no new ones")
    hotkeys: Annotated[list[Hotkey], Field(max_length=MAX_HOTKEYS), AfterValidator(_distinct)] = (
        Field(default_factory=list, description="single keys the rating page binds to it")
    )
    step_kinds: Annotated[
        list[Annotated[StepKind, Strict(False)]],
        Field(max_length=len(StepKind)),
        AfterValidator(_distinct),
    ] = Field(
        default_factory=list,
        description="the kinds of step it is asked of (a rating that names such a step); "
        "empty: it is asked of the whole turn",
    )
    candidates: bool = Field(
        default=False,
        description="asked of each candidate of a comparison, by its judge, instead of turns",
    )

    @model_validator(mode="after")
    def _asked_of_one_thing(self) -> Self:
        if self.candidates and self.step_kinds:
            raise FieldError("candidates", CANDIDATES_OR_STEPS)
        return self

    def asked_of(self, kind: StepKind | None) -> bool:
        """Whether a rating of a step of this kind (None: of the whole turn) answers it."""
        if self.candidates:
            return False
        return kind in self.step_kinds if kind is not None else not self.step_kinds

    @property
    def scored(self) -> bool:
        """Whether its answers order the response, lowest to highest (feedback.rubrics.scores)."""
        return False


class NumericQuestion(QuestionBase):
    kind: Literal["numeric"] = "numeric"
    min: Bound
    max: Bound
    step: Annotated[float, Field(gt=0)] | None = Field(
        default=None, description="values are min + k * step; null: any value from min to max"
    )
    min_label: Label | None = None
    max_label: Label | None = None

    @property
    def scored(self) -> bool:
        return True

    @model_validator(mode="after")
    def _check_grid(self) -> NumericQuestion:
        if self.min >= self.max:
            raise FieldError("max", f"max ({self.max:g}) must be above min ({self.min:g})")
        if self.step is not None:
            steps = (self.max - self.min) / self.step
            if steps > MAX_STEPS + 0.5:
                raise FieldError("step", f"at most {MAX_STEPS} steps from min to max")
            if round(steps) < 1 or not whole(steps):
                raise FieldError("step", "max - min must be a whole number of steps")
        return self


class CategoricalQuestion(QuestionBase):
    kind: Literal["categorical"] = "categorical"
    options: Annotated[Options, Field(min_length=2)]
    multiple: bool = Field(default=False, description="an answer is a list of options")
    ordered: bool = Field(default=False, description="the options go from lowest to highest")

    @field_validator("options", mode="before")
    @classmethod
    def _few_options(cls, options: Any) -> Any:
        _at_most(bounds.max_options(), "options", options)
        return options

    @model_validator(mode="after")
    def _check_order(self) -> CategoricalQuestion:
        if self.ordered and self.multiple:
            raise FieldError("ordered", "an ordered question takes one option: not with multiple")
        return self

    @property
    def scored(self) -> bool:
        return self.ordered


class BooleanQuestion(QuestionBase):
    kind: Literal["boolean"] = "boolean"

    @property
    def scored(self) -> bool:
        return True


class TextQuestion(QuestionBase):
    kind: Literal["text"] = "text"
    max_length: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="characters an answer holds; null: the host's most"
    )

    @field_validator("max_length")
    @classmethod
    def _within_the_host(cls, length: int | None) -> int | None:
        if length is not None and length > bounds.max_text():
            raise ValueError(f"at most {bounds.max_text()} characters")
        return length

    def answer_length(self) -> int:
        """The most characters an answer may hold (never more than the host's most now)."""
        return min(self.max_length or bounds.max_text(), bounds.max_text())


class SpansQuestion(QuestionBase):
    kind: Literal["spans"] = "spans"
    options: Annotated[Options, Field(min_length=1, description="the labels a span may take")]

    @field_validator("options", mode="before")
    @classmethod
    def _few_labels(cls, options: Any) -> Any:
        _at_most(bounds.max_options(), "span labels", options)
        return options

    @model_validator(mode="after")
    def _of_a_turn(self) -> SpansQuestion:
        if self.candidates:
            raise FieldError("candidates", NO_CANDIDATE_SPANS)
        return self


AnyQuestion = NumericQuestion | CategoricalQuestion | BooleanQuestion | TextQuestion | SpansQuestion
Question = Annotated[AnyQuestion, Field(discriminator="kind")]
QUESTION_KINDS: dict[str, type[QuestionBase]] = {
    model.model_fields["kind"].default: model for model in get_args(AnyQuestion)
}


class Rubric(StrictModel):
    questions: list[Question]
    preference: Annotated[str, Field(max_length=40)] = Field(
        default="",
        description="the key of the question whose answer says how good the response was, "
        "for the exports that take one line a rating; empty: the feedback's score",
    )

    @field_validator("questions", mode="before")
    @classmethod
    def _few_questions(cls, questions: Any) -> Any:
        _at_most(bounds.max_questions(), "questions", questions)
        if isinstance(questions, list) and not questions:
            raise ValueError("a rubric asks one question at least")
        return questions

    @model_validator(mode="after")
    def _check_unique(self) -> Rubric:
        keys: dict[str, int] = {}
        hotkeys: dict[str, str] = {}
        for index, question in enumerate(self.questions):
            if question.key in keys:
                raise FieldError(
                    ("questions", index, "key"),
                    f"{question.key!r} is already the key of question {keys[question.key]}",
                )
            keys[question.key] = index
            for hotkey in question.hotkeys:
                if hotkey in hotkeys:
                    raise FieldError(
                        ("questions", index, "hotkeys"),
                        f"{hotkey!r} is already a hotkey of {hotkeys[hotkey]!r}",
                    )
                hotkeys[hotkey] = question.key
        if self.preference:
            chosen = self.by_key().get(self.preference)
            if chosen is None or not chosen.scored or chosen.candidates:
                raise FieldError(
                    "preference",
                    "the key of a question of turns with a score: numeric, boolean, or ordered "
                    "categorical",
                )
        return self

    def by_key(self) -> dict[str, AnyQuestion]:
        return {question.key: question for question in self.questions}


def rubric_from(data: Any) -> Rubric:
    """The rubric `data` (JSON as read: `{"questions": [...]}`) says, or `invalid` naming every
    bad field of its questions as `["questions", i, field]`.

    Each question is read first by its own kind's model, so that the places named are the
    question's fields; then the rubric as a whole (the count, the keys and hotkeys unique).
    """
    items = data.get("questions") if isinstance(data, dict) else None
    if isinstance(items, list) and len(items) <= bounds.max_questions():
        details = [line for index, item in enumerate(items) for line in _refusals(index, item)]
        if details:
            raise invalid(summarize(details), details)
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        raise invalid_from(exc, read_from_json=True) from None


def _refusals(index: int, item: Any) -> list[dict[str, Any]]:
    place: Loc = ["questions", index]
    if not isinstance(item, dict):
        return [detail(place, "a question is an object")]
    kind = item.get("kind")
    model = QUESTION_KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        said = "it has no kind" if kind is None else f"{cut(repr(kind), LABEL_LENGTH)} is no kind"
        return [detail([*place, "kind"], f"{said}; a kind is one of {', '.join(QUESTION_KINDS)}")]
    try:
        model.model_validate(item)
    except ValidationError as exc:
        refused = invalid_from(exc, read_from_json=True).details
        return [{**line, "loc": [*place, *line["loc"]]} for line in refused]
    return []
