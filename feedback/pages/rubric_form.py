"""The rating form of a project's own rubric, on the queue and the rate page: each question as
its kind asks (templates/feedback/partials/rubric_form.html, rubric.js), read back into the
answers that `POST /api/ratings/` takes, so that one service judges both (feedback.services.
ratings). A project that wrote no rubric rates on the five-dimension form (feedback.forms).

What the browser sends, per question `q-<key>`: a number for `numeric`, an option (several, for
`multiple`) for `categorical`, `yes` or `no` for `boolean`, the text for `text`, and for `spans`
the JSON list rubric.js keeps. Anything else is passed on as sent, for the service to refuse in
its own words next to the question.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from core.projects.selection import project_pk
from feedback.models import RubricVersion
from feedback.rubrics.answers import asked_of_rated, shown
from feedback.rubrics.questions import (
    AnyQuestion,
    BooleanQuestion,
    CategoricalQuestion,
    NumericQuestion,
    Rubric,
    SpansQuestion,
    TextQuestion,
)
from feedback.rubrics.versions import VERSION_DIGITS
from feedback.services.ratings import RatingOutcome, Remarks, rating_record
from feedback.services.rubrics import StoredRubric, rubric_current
from feedback.traces.steps import StepKind
from learnportal_protocol.errors import ErrorCode, LearnError, detail, invalid

if TYPE_CHECKING:
    from django.http import QueryDict

    from core.accounts.principals import Principal
    from feedback.models import Turn, TurnStep

PREFIX = "q-"
CANDIDATE_PREFIX = "c-"  # `c-<candidate id>-<key>`: a candidate's answer on the judging page
STEP_FIELD = "step_id"  # the hidden field of the step rated; empty: the whole turn
YES, NO = "yes", "no"
REMARKS = ("comment", "correction")
# A numeric question with at most this many values is a row of choices; one with more a slider.
MAX_BUTTONS = 11


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    hotkey: str
    checked: bool


@dataclass
class QuestionField:
    """One question as the form shows it, with what the person sent and why it was refused."""

    question: AnyQuestion
    name: str
    value: str = ""
    choices: list[Choice] = field(default_factory=list)
    error: str = ""
    guidelines: str = ""  # the question's own, rendered (feedback.pages.guidelines)
    hotkeys: str = ""  # the keys the page binds to it (rubric.js), none for a candidate's

    @property
    def kind(self) -> str:
        return self.question.kind

    @property
    def control(self) -> str:
        """How the template draws it: choices, slider, number, text or spans."""
        question = self.question
        if isinstance(question, SpansQuestion | TextQuestion):
            return question.kind
        if isinstance(question, NumericQuestion) and not self.choices:
            return "slider" if question.step else "number"
        return "choices"

    @property
    def multiple(self) -> bool:
        return isinstance(self.question, CategoricalQuestion) and self.question.multiple


@dataclass
class RubricForm:
    version: int
    fields: list[QuestionField]
    remarks: dict[str, str] = field(default_factory=dict)
    error: str = ""
    step: TurnStep | None = None  # the step rated, whose kind's questions these are
    step_kinds: frozenset[str] = frozenset()  # the kinds of step the rubric asks anything of
    session: bool = False  # rating the session the turn begins (feedback.sessions)

    @property
    def marks_spans(self) -> bool:
        return any(each.control == "spans" for each in self.fields)

    @property
    def hotkeys(self) -> list[tuple[str, str]]:
        """(keys, what they do) for the shortcuts list, a row a question that has keys."""
        rows = []
        for each in self.fields:
            keys = each.question.hotkeys
            if keys:
                rows.append((" ".join(keys), _hotkey_help(each)))
        return rows


def has_own_rubric(project: str) -> bool:
    return RubricVersion.objects.filter(project_id=project_pk(project)).exists()


def rubric_form(
    project: str,
    sent: QueryDict | None = None,
    step: TurnStep | None = None,
    *,
    session: bool = False,
) -> RubricForm | None:
    """The form of the project's rubric (`sent`: as a browser posted it) for the whole turn,
    one of its steps or (`session`) the session it begins, or None for a project that rates on
    the default form."""
    if not has_own_rubric(project):
        return None
    return rubric_form_of(rubric_current(project_pk(project)), sent, step, session=session)


def rubric_form_of(
    stored: StoredRubric,
    sent: QueryDict | None = None,
    step: TurnStep | None = None,
    *,
    session: bool = False,
) -> RubricForm:
    """The form of any version of a rubric, a draft too (the rubric builder's preview): the
    questions asked of the whole turn, of the kind of `step`, or of a session."""
    answers = {} if sent is None else answers_sent(stored.rubric, sent)
    remarks = {} if sent is None else {name: sent.get(name, "") for name in REMARKS}
    kind = StepKind(step.kind) if step is not None else None
    questions = [
        q
        for q in stored.rubric.questions
        if not q.retired and asked_of_rated(q, kind, session=session)
    ]
    fields = [_field(q, answers.get(q.key)) for q in questions]
    asked = _kinds_asked(stored.rubric)
    return RubricForm(stored.version, fields, remarks, step=step, step_kinds=asked, session=session)


def step_kinds_asked(project: str) -> list[str]:
    """The kinds of step the project's rubric asks anything of, in the kinds' order (none for
    a project on the default form)."""
    if not has_own_rubric(project):
        return []
    asked = _kinds_asked(rubric_current(project_pk(project)).rubric)
    return [kind.value for kind in StepKind if kind.value in asked]


def _kinds_asked(rubric: Rubric) -> frozenset[str]:
    return frozenset(kind.value for q in rubric.questions if not q.retired for kind in q.step_kinds)


def answers_sent(
    rubric: Rubric,
    sent: QueryDict,
    *,
    prefix: str = PREFIX,
    questions: list[AnyQuestion] | None = None,
) -> dict[str, Any]:
    """The answers the browser sent, as `POST /api/ratings/` would carry them (or, with a
    candidate's `prefix` and the `questions` of candidates, a judgment its candidate's)."""
    answers: dict[str, Any] = {}
    for question in rubric.questions if questions is None else questions:
        name = prefix + question.key
        if isinstance(question, CategoricalQuestion) and question.multiple:
            chosen = sent.getlist(name)
            if chosen:
                answers[question.key] = chosen
            continue
        raw = sent.get(name, "")
        if raw == "":
            continue
        answers[question.key] = _read(question, raw)
    return answers


def _read(question: AnyQuestion, raw: str) -> Any:
    match question:
        case NumericQuestion():
            try:
                number = float(raw)
            except ValueError:
                return raw
            return number if math.isfinite(number) else raw
        case BooleanQuestion():
            return {YES: True, NO: False}.get(raw, raw)
        case SpansQuestion():
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                return raw
        case _:
            return raw


def candidate_prefix(candidate_id: str) -> str:
    """What the names of a candidate's fields begin with on the judging page."""
    return f"{CANDIDATE_PREFIX}{candidate_id}-"


def candidates_sent(post: QueryDict) -> list[str]:
    """The candidate ids the judging page's fields name, in the order first named."""
    found: dict[str, None] = {}
    for name in post:
        if name.startswith(CANDIDATE_PREFIX):
            candidate, dash, _ = name.removeprefix(CANDIDATE_PREFIX).partition("-")
            if dash and candidate:
                found[candidate] = None
    return list(found)


def candidate_questions(rubric: Rubric) -> list[AnyQuestion]:
    """The questions a judge answers of each candidate of a comparison."""
    return [q for q in rubric.questions if q.candidates and not q.retired]


def candidate_fields(
    questions: list[AnyQuestion], candidate_id: str, answers: dict[str, Any], errors: dict[str, str]
) -> list[QuestionField]:
    """A candidate's fields on the judging page, with what was sent and each one's refusal
    (`errors`, by field name)."""
    prefix = candidate_prefix(candidate_id)
    fields = [_field(q, answers.get(q.key), prefix=prefix) for q in questions]
    for each in fields:
        each.error = errors.get(each.name, "")
    return fields


def rubric_rate(
    principal: Principal, turn: Turn, form: RubricForm, sent: QueryDict
) -> RatingOutcome:
    """Store the posted rating, or put each refusal next to its question and raise it again."""
    stored = rubric_current(project_pk(principal.project))
    answers = answers_sent(stored.rubric, sent)
    remarks = Remarks(comment=sent.get("comment", ""), correction=sent.get("correction", ""))
    try:
        return rating_record(
            principal=principal,
            turn=turn.correlation_id,
            answers=answers,
            remarks=remarks,
            rubric_version=_version_sent(sent),
            step_id=sent.get(STEP_FIELD, ""),
        )
    except LearnError as error:
        show_rubric_refusal(form, error)
        raise


def _version_sent(sent: QueryDict) -> int | None:
    """The rubric version the form was drawn from (its hidden field); None if it sent none."""
    raw = sent.get("rubric_version", "")
    if raw == "":
        return None
    if not raw.isdecimal() or len(raw) > VERSION_DIGITS:
        said = "the version of the rubric the form was drawn from, a number"
        raise invalid(f"rubric_version: {said}", [detail(["rubric_version"], said)])
    return int(raw)


def show_rubric_refusal(form: RubricForm, error: LearnError) -> None:
    by_key = {each.question.key: each for each in form.fields}
    rest = []
    for item in error.details:
        loc = item.get("loc") or []
        place = by_key.get(loc[1]) if len(loc) > 1 and loc[0] == "answers" else None
        if place is not None:
            place.error = str(item.get("msg", ""))
        else:
            rest.append(str(item.get("msg", "")))
    if rest or error.code is not ErrorCode.INVALID or not error.details:
        form.error = error.message


def _field(question: AnyQuestion, answer: Any, *, prefix: str = PREFIX) -> QuestionField:
    """The question's field; one of a candidate's (its own `prefix`) binds no hotkeys, as the
    same question is asked of every candidate on one page."""
    name = prefix + question.key
    keys = question.hotkeys if prefix == PREFIX else []
    if isinstance(question, CategoricalQuestion):
        chosen = set(answer) if isinstance(answer, list) else {answer}
        field = QuestionField(question, name, choices=_choices(question.options, keys, chosen))
        return _keyed(field, keys)
    if isinstance(question, BooleanQuestion):
        said = {True: YES, False: NO}.get(answer) if isinstance(answer, bool) else None
        labels = [(YES, "Yes"), (NO, "No")]
        choices = [
            Choice(value, label, keys[i] if i < len(keys) else "", value == said)
            for i, (value, label) in enumerate(labels)
        ]
        return _keyed(QuestionField(question, name, choices=choices), keys)
    value = _shown_value(answer)
    if isinstance(question, SpansQuestion):
        marks = _choices(question.options, keys, set())
        return _keyed(QuestionField(question, name, value or "[]", choices=marks), keys)
    if isinstance(question, NumericQuestion) and question.step:
        count = round((question.max - question.min) / question.step) + 1
        if count <= MAX_BUTTONS:
            values = [f"{question.min + i * question.step:g}" for i in range(count)]
            choices = _choices(values, keys, {value}, numbers=True)
            return _keyed(QuestionField(question, name, value, choices=choices), keys)
    return _keyed(QuestionField(question, name, value), keys)


def _keyed(field: QuestionField, keys: list[str]) -> QuestionField:
    field.hotkeys = "".join(keys)
    return field


def _choices(
    values: list[str], keys: list[str], chosen: set[Any], *, numbers: bool = False
) -> list[Choice]:
    return [
        Choice(
            value,
            value,
            keys[i] if i < len(keys) else "",
            value in chosen or (numbers and _same_number(value, chosen)),
        )
        for i, value in enumerate(values)
    ]


def _same_number(value: str, chosen: set[Any]) -> bool:
    try:
        return any(float(value) == float(c) for c in chosen if c not in (None, ""))
    except ValueError:
        return False


def _shown_value(answer: Any) -> str:
    if answer is None:
        return ""
    if isinstance(answer, float):
        return f"{answer:g}"
    if isinstance(answer, str):
        return answer
    return orjson.dumps(answer).decode() if isinstance(answer, list) else shown(answer)


def _hotkey_help(each: QuestionField) -> str:
    label = each.question.label
    if each.choices and each.control == "choices":
        return f"{label}: " + ", ".join(f"{c.hotkey} {c.label}" for c in each.choices if c.hotkey)
    if each.control == "spans":
        marks = ", ".join(f"{c.hotkey} {c.label}" for c in each.choices if c.hotkey)
        return f"{label}: select text in the response, then {marks}"
    return f"{label}: go to the field"
