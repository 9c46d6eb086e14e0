"""Turns from a file, for teams that bring their own (from Argilla, Label Studio, a dataset):
each row mapped to a turn by a `ColumnMapping`, validated as `POST /api/turns/` validates a turn
(feedback.turn_items), and stored by the same service in batches of LEARNPORTAL_MAX_BATCH, each
all or nothing, a correlation_id already queued stored once. The import page and
`manage.py import_turns` both call `turns_import_batch`; what a file holds is feedback.turn_files'.

A refused row is reported, naming its row and field, and not stored; the other rows are. Since a
turn is stored once per correlation_id, the fixed file can be imported again as a whole.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from pydantic import ValidationError

from core.accounts.roles import Action
from feedback.services.turns import turns_store
from feedback.turn_items import TurnItem, turn_inputs, turns_batch_checked
from learnportal_protocol.errors import detail, invalid
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from core.accounts.principals import Principal
    from feedback.turn_files import Row

# What a column may be mapped to, in the order the page offers them; metadata takes several.
TARGETS = ("prompt", "response", "model", "component", "session", "correlation_id")
REQUIRED_TARGETS = ("prompt", "response")
# Where each target goes in the turn POST /api/turns/ takes (feedback.turn_items.TurnItem).
TARGET_LOCS: dict[str, tuple[str, ...]] = {
    "prompt": ("rated_turn", "prompt"),
    "response": ("rated_turn", "response"),
    "model": ("rated_turn", "model"),
    "component": ("component_name",),
    "session": ("session_id",),
    "correlation_id": ("correlation_id",),
    "metadata": ("rated_turn", "environment"),
}
# Ids are often numbers in other tools' exports (Label Studio's task id): read as their text.
ID_TARGETS = ("session", "correlation_id")
# A column is offered for a target when its name (its last dotted part) is one of these: the
# names of this host, Argilla's and Label Studio's usual fields, and a dataset's.
GUESSES: dict[str, tuple[str, ...]] = {
    "prompt": ("prompt", "input", "instruction", "question", "query"),
    "response": ("response", "output", "completion", "answer"),
    "model": ("model", "model_name"),
    "component": ("component", "component_name", "agent"),
    "session": ("session", "session_id", "conversation_id"),
    "correlation_id": ("correlation_id", "turn_id", "id"),
}
DERIVED_ID_PREFIX = "import-"


@dataclass(frozen=True)
class ColumnMapping:
    """Which of the file's columns each part of a turn comes from ("" for none)."""

    prompt: str
    response: str
    model: str = ""
    component: str = ""
    session: str = ""
    correlation_id: str = ""
    metadata: tuple[str, ...] = ()

    def column(self, target: str) -> str:
        return ", ".join(self.metadata) if target == "metadata" else str(getattr(self, target))


def guessed_mapping(columns: Sequence[str]) -> dict[str, str]:
    """The column each target most likely comes from, by name; a target with none is left out."""
    guessed: dict[str, str] = {}
    for target in TARGETS:
        for column in columns:
            if (
                column.rsplit(".", 1)[-1].lower() in GUESSES[target]
                and column not in guessed.values()
            ):
                guessed[target] = column
                break
    return guessed


def mapping_checked(mapping: ColumnMapping, columns: Sequence[str]) -> ColumnMapping:
    """Refuse a mapping that leaves the prompt or response out or names no column of the file,
    naming each target at fault (`invalid`, loc ["mapping", target])."""
    problems = [
        detail(["mapping", target], f"choose the column that holds the {target}")
        for target in REQUIRED_TARGETS
        if not getattr(mapping, target)
    ]
    named = [(t, getattr(mapping, t)) for t in TARGETS] + [
        ("metadata", c) for c in mapping.metadata
    ]
    problems += [
        detail(["mapping", target], f"the file has no column {column!r}")
        for target, column in named
        if column and column not in columns
    ]
    if problems:
        raise invalid("The columns are not mapped to a turn: " + problems[0]["msg"] + ".", problems)
    return mapping


@dataclass(frozen=True)
class RefusedRow:
    row: int
    field: str  # a target ("prompt", "metadata", ...), or "row" for a row not read at all
    column: str
    message: str


@dataclass
class ImportReport:
    rows: int = 0
    created: int = 0
    duplicates: int = 0  # valid rows whose correlation_id was already queued (or repeated)
    refused: list[RefusedRow] = field(default_factory=list)

    def add(self, other: ImportReport) -> None:
        self.rows += other.rows
        self.created += other.created
        self.duplicates += other.duplicates
        self.refused.extend(other.refused)


def _value(row: Row, column: str, target: str) -> Any:
    value = row.values.get(column) if column else None
    if target in ID_TARGETS and type(value) is int:
        return str(value)
    return value


def _derived_id(prompt: Any, response: Any, model: Any, session: Any) -> str:
    """The same turn, the same id: a file imported twice is stored once."""
    key = orjson.dumps([prompt, response, model, session], default=str)
    return DERIVED_ID_PREFIX + hashlib.sha256(key).hexdigest()[:32]


def _item(row: Row, mapping: ColumnMapping) -> dict[str, Any]:
    """The turn of this row, as POST /api/turns/ would be sent it."""
    got = {t: _value(row, mapping.column(t), t) for t in TARGETS if t != "correlation_id"}
    correlation_id = _value(row, mapping.correlation_id, "correlation_id")
    if correlation_id is None:
        correlation_id = _derived_id(got["prompt"], got["response"], got["model"], got["session"])
    turn: dict[str, Any] = {
        "prompt": got["prompt"],
        "response": got["response"],
        "model": "" if got["model"] is None else got["model"],
    }
    metadata = {c: row.values[c] for c in mapping.metadata if c in row.values}
    if metadata:
        turn["environment"] = metadata
    return {
        "correlation_id": correlation_id,
        "session_id": "" if got["session"] is None else got["session"],
        "component_name": "" if got["component"] is None else got["component"],
        "rated_turn": turn,
    }


def _target_of(loc: Sequence[str | int]) -> str:
    for target, place in TARGET_LOCS.items():
        if tuple(loc[: len(place)]) == place:
            return target
    return "row"


def _refusals(row: Row, mapping: ColumnMapping) -> tuple[TurnItem | None, list[RefusedRow]]:
    if row.unreadable:
        return None, [RefusedRow(row.number, "row", "", row.unreadable)]
    missing = [
        RefusedRow(row.number, t, mapping.column(t), f"no {t}: the column is empty in this row")
        for t in REQUIRED_TARGETS
        if row.values.get(mapping.column(t)) is None
    ]
    if missing:
        return None, missing
    try:
        return TurnItem.model_validate(_item(row, mapping)), []
    except ValidationError as exc:
        refused = []
        for item in invalid_from(exc, read_from_json=True).details:
            target = _target_of(item["loc"])
            column = mapping.column(target) if target != "row" else ""
            refused.append(RefusedRow(row.number, target, column, item["msg"]))
        return None, refused


def turns_import_batch(
    *, principal: Principal, rows: Sequence[Row], mapping: ColumnMapping
) -> ImportReport:
    """Import one batch of rows: the valid ones stored all or nothing, the others reported."""
    principal.require(Action.IMPORT_TURNS)
    turns_batch_checked(len(rows))
    valid: list[TurnItem] = []
    report = ImportReport(rows=len(rows))
    for row in rows:
        item, refused = _refusals(row, mapping)
        report.refused.extend(refused)
        if item is not None:
            valid.append(item)
    if valid:
        report.created = turns_store(principal=principal, turns=turn_inputs(valid)).created
    report.duplicates = len(valid) - report.created
    return report


def turns_import(
    *,
    principal: Principal,
    rows: Iterable[Row],
    mapping: ColumnMapping,
    progress: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
    """Import every row, a batch of LEARNPORTAL_MAX_BATCH at a time; `progress` hears the
    running total after each batch."""
    total = ImportReport()
    iterator = iter(rows)
    while batch := list(itertools.islice(iterator, settings.LEARNPORTAL_MAX_BATCH)):
        total.add(turns_import_batch(principal=principal, rows=batch, mapping=mapping))
        if progress is not None:
            progress(total)
    return total
