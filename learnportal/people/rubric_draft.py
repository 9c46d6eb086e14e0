"""The rubric builder's form (templates/projects/rubric.html): a card a question, read back into
the `{"questions": [...]}` that `rubric_replace` judges, and each refusal put next to the card
and the field it names.

Each card posts `question=<token>`, in the order the cards stand (the rubric's order), and its
fields as `card-<token>-<field>`: moving a card moves its fields, with nothing to renumber. Of
the fields that belong to one kind only those of the card's kind are read (the page disables the
others, so that a browser does not send them).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from feedback.rubrics import bounds
from feedback.rubrics.questions import (
    DESCRIPTION_LENGTH,
    LABEL_LENGTH,
    QUESTION_KINDS,
    AnyQuestion,
    QuestionBase,
)
from feedback.traces.steps import StepKind
from learnportal_protocol.errors import ErrorCode, LearnError, detail, invalid

if TYPE_CHECKING:
    from django.http import QueryDict

    from feedback.rubrics.questions import Rubric

STEP_KINDS = [kind.value for kind in StepKind]
TOKEN = re.compile(r"^[0-9]{1,6}$")
CARD_FIELD = "question"  # the name each card's token is posted under
FLAGS = frozenset({"required", "retired", "multiple", "ordered", "candidates"})  # checkboxes
NUMBERS = frozenset({"min", "max", "step"})
OPTIONAL = frozenset({"step", "min_label", "max_label", "max_length"})  # blank: none
LISTS = {"hotkeys": "words", "step_kinds": "words", "options": "lines"}
# The fields every question has, in the order a card shows them, and those of each kind.
COMMON = (
    *("key", "kind", "label", "description", "required", "retired", "hotkeys", "step_kinds"),
    "candidates",
)
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(n for n in model.model_fields if n not in QuestionBase.model_fields and n != "kind")
    for kind, model in QUESTION_KINDS.items()
}

WIDGETS = {"kind": "select", "description": "textarea", "options": "textarea"} | dict.fromkeys(
    FLAGS, "checkbox"
)
LABELS = {
    "key": "Key",
    "kind": "Kind",
    "label": "Label",
    "description": "Description",
    "required": "Required",
    "retired": "Retired",
    "hotkeys": "Hotkeys",
    "step_kinds": "Asked of steps",
    "candidates": "Asked of each candidate",
    "min": "Lowest",
    "max": "Highest",
    "step": "Step",
    "min_label": "Label of the lowest",
    "max_label": "Label of the highest",
    "options": "Options",
    "multiple": "Several may be chosen",
    "ordered": "Ordered, lowest first",
    "max_length": "Longest answer",
}
HELP = {
    "key": "a-z first, then a-z, 0-9 or _; answers are stored under it",
    "description": "shown under the label",
    "retired": "kept for its answers, asked no more",
    "hotkeys": "single keys, separated by spaces: one a choice, in order",
    "step_kinds": f"kinds of step, separated by spaces ({' '.join(STEP_KINDS)}); "
    "empty: asked of the whole turn",
    "candidates": "when judging a comparison, of each response, instead of turns; no spans",
    "step": "empty: any value from lowest to highest",
    "options": "one a line",
    "max_length": "characters; empty: the host's most",
}
SPAN_HELP = "the labels a span may take, one a line"
PREFERENCE = "preference"  # the rubric's field, and the form's


def field_limit(name: str) -> int:
    """The most characters a card's field may hold as sent: one more than any good value, so
    that what is too long is refused by the rubric's own rule and shown back bounded."""
    if name == "description":
        return DESCRIPTION_LENGTH + 1
    if name == "options":
        return (bounds.max_options() + 1) * (LABEL_LENGTH + 1)
    return LABEL_LENGTH + 1


def draft_max_bytes() -> int:
    """The largest builder form read: room for every question the host allows, each at its
    longest (percent-encoded, as a form sends it), and no more."""
    names = {*COMMON, *(name for fields in KIND_FIELDS.values() for name in fields)}
    one_card = 9 * sum(field_limit(name) for name in names)  # 9: "%E2%80%A6" for one "…"
    return bounds.max_questions() * one_card + 64 * 1024


@dataclass
class CardField:
    name: str  # the question's field
    input_name: str
    id: str  # two kinds may both have a field of one name (options): an id each
    value: str
    widget: str
    label: str
    help: str
    limit: int
    error: str = ""

    @property
    def checked(self) -> bool:
        return self.value == "on"


@dataclass
class Card:
    token: str
    values: dict[str, str]
    answered: bool = False
    error: str = ""  # about the question as a whole (a conflict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.values.get("kind", "")

    @property
    def common(self) -> list[CardField]:
        return [self._field(name) for name in COMMON]

    @property
    def groups(self) -> list[dict[str, Any]]:
        """The fields of each kind, only the card's own shown and sent."""
        return [
            {
                "kind": kind,
                "current": kind == self.kind,
                "fields": [self._field(name, kind) for name in names],
            }
            for kind, names in KIND_FIELDS.items()
        ]

    def _field(self, name: str, kind: str = "") -> CardField:
        spans = name == "options" and kind == "spans"
        return CardField(
            name=name,
            input_name=f"card-{self.token}-{name}",
            id=f"card-{self.token}-{name}" + (f"-{kind}" if kind else ""),
            value=self.values.get(name, ""),
            widget=WIDGETS.get(name, "text"),
            label="Span labels" if spans else LABELS[name],
            help=SPAN_HELP if spans else HELP.get(name, ""),
            limit=field_limit(name) - 1,
            error=self.errors.get(name, ""),
        )


# From a rubric ------------------------------------------------------------------------------


def cards_of(rubric: Rubric, answered: set[str]) -> list[Card]:
    return [
        Card(str(index), card_values(question), answered=question.key in answered)
        for index, question in enumerate(rubric.questions, start=1)
    ]


def blank_card(token: str, kind: str) -> Card:
    return Card(token, {"kind": kind})


def card_values(question: AnyQuestion) -> dict[str, str]:
    data = question.model_dump(mode="json")
    return {name: _shown(name, value) for name, value in data.items()}


def _shown(name: str, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else ""
    if isinstance(value, list):
        return ("\n" if LISTS.get(name) == "lines" else " ").join(map(str, value))
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return str(value)


# From the form ------------------------------------------------------------------------------


def cards_sent(post: QueryDict, answered: set[str]) -> list[Card]:
    """The cards as the browser sent them, or `invalid` naming a card's field that is longer
    than any good value (never read further, nor shown back whole)."""
    tokens = [t for t in dict.fromkeys(post.getlist(CARD_FIELD)) if TOKEN.match(t)]
    if len(tokens) > bounds.max_questions():
        limit = bounds.max_questions()
        raise invalid(
            f"A rubric asks at most {limit} questions; got {len(tokens)}.",
            [detail(["questions"], f"at most {limit} questions; got {len(tokens)}")],
        )
    cards = []
    too_long = []
    for index, token in enumerate(tokens):
        values = {}
        for name in (*COMMON, *{n for names in KIND_FIELDS.values() for n in names}):
            sent = post.get(f"card-{token}-{name}")
            if sent is None:
                continue
            if len(sent) > field_limit(name):
                limit = field_limit(name) - 1
                too_long.append(detail(["questions", index, name], f"at most {limit} characters"))
                sent = sent[:limit]
            values[name] = sent
        cards.append(Card(token, values, answered=values.get("key", "") in answered))
    if too_long:
        error = invalid("Some fields are longer than any question takes.", too_long)
        show_refusal(cards, error)
        raise DraftRefused(cards, error)
    return cards


class DraftRefused(Exception):
    """A draft refused before it was read as a rubric: its cards (bounded), the refusal beside
    the fields it names."""

    def __init__(self, cards: list[Card], error: LearnError) -> None:
        super().__init__(error.message)
        self.cards = cards
        self.error = error


def draft_data(cards: list[Card], preference: str = "") -> dict[str, Any]:
    """The `{"questions": [...], "preference": key}` the cards and the preference field say,
    as `rubric_from` reads JSON."""
    return {"questions": [_question(card) for card in cards], "preference": preference}


def preference_sent(post: QueryDict) -> str:
    """The preference question's key as typed, bounded as a card's key is (the rubric's rule
    refuses a longer one by its field, and no more is echoed)."""
    return post.get(PREFERENCE, "").strip()[: field_limit("key")]


def _question(card: Card) -> dict[str, Any]:
    names = (*COMMON, *KIND_FIELDS.get(card.kind, ()))
    return {name: _read(name, card.values.get(name, "")) for name in names}


def _read(name: str, text: str) -> Any:
    if name in FLAGS:
        return text == "on"
    if name in LISTS:
        parts = text.split() if LISTS[name] == "words" else text.splitlines()
        return [part.strip() for part in parts if part.strip()]
    if text.strip() == "" and name in OPTIONAL:
        return None
    if name in NUMBERS:
        return _number(text, float)
    if name == "max_length":
        return _number(text, int)
    return text


def _number(text: str, kind: type[float] | type[int]) -> Any:
    """The number typed, or the text as typed, for the rubric's rule to refuse by its field."""
    try:
        number = kind(text.strip())
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def next_token(cards: list[Card]) -> str:
    """The smallest token no card has: never more digits than TOKEN reads."""
    taken = {card.token for card in cards}
    return next(str(n) for n in itertools.count(1) if str(n) not in taken)


# Refusals -----------------------------------------------------------------------------------


def show_refusal(cards: list[Card], error: LearnError) -> str:
    """Put each detail next to the card (by its place, or by its key for a conflict) and the
    field it names; answer what the page says above the cards ("" when every detail is placed)."""
    by_key = {card.values.get("key"): card for card in cards}
    unplaced = []
    for item in error.details:
        loc = list(item.get("loc") or [])
        message = str(item.get("msg", ""))
        if loc == [PREFERENCE]:
            continue  # shown beside the preference field (learnportal.people.rubric_pages)
        card = _card_named(cards, by_key, loc)
        if card is None:
            unplaced.append(message)
        elif len(loc) > 2 and isinstance(loc[2], str) and loc[2] in LABELS:
            card.errors.setdefault(loc[2], message)
        else:
            card.error = card.error or message
    if unplaced or not error.details or error.code not in (ErrorCode.INVALID, ErrorCode.CONFLICT):
        return error.message
    return ""


def _card_named(cards: list[Card], by_key: dict[str | None, Card], loc: list[Any]) -> Card | None:
    if len(loc) < 2 or loc[0] != "questions":
        return None
    place = loc[1]
    if isinstance(place, int) and not isinstance(place, bool):
        return cards[place] if 0 <= place < len(cards) else None
    return by_key.get(str(place))
