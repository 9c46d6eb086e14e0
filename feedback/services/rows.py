"""The rows the ingest services write, as `feedback.bulk.insert_rows` takes them: each table's
columns in the order of its rows, and the pieces of a row the writers share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import orjson

from core.columns import Columns
from core.projects.selection import project_pk
from feedback.intake.admission import Entry, new_turns_entries
from feedback.models import Experience, Feedback, Turn
from feedback.queue_state import queue_fields_of

if TYPE_CHECKING:
    from pydantic import BaseModel

    from core.accounts.principals import Principal
    from feedback.bulk import Row
    from feedback.facts import Facts
    from learnportal_protocol import Feedback as FeedbackItem
    from learnportal_protocol import FeedbackSource, RatedTurn


FEEDBACK_COLUMNS = Columns(Feedback)(
    "feedback_id",
    "correlation_id",
    "session_id",
    "component_name",
    "rated_turn",
    "polarity",
    "score",
    "dimension",
    "confidence",
    "comment",
    "correction",
    "span_start",
    "span_end",
    "source",
    "annotator_id",
    "step_id",
    "ts",
    "submitted_by",
    "content_hash",
    "received",
    "project",
)


EXPERIENCE_COLUMNS = Columns(Experience)(
    "experience_id",
    "owner",
    "episode_id",
    "step",
    "component_name",
    "reward",
    "done",
    "duration_ms",
    "success",
    "behaviour_prob",
    "state",
    "action",
    "next_state",
    "ts",
    "content_hash",
    "attributed",
    "project",
)


TURN_COLUMNS = Columns(Turn)(
    "correlation_id",
    "session_id",
    "component_name",
    "prompt",
    "response",
    "model",
    "environment",
    "version",
    "submitted_by",
    "created",
    "project",
    "admitted",
    "admitted_priority",
    "ratings_needed",
    "priority",
)
TURN_PROJECT = TURN_COLUMNS.index(Columns(Turn).project)
TURN_COMPONENT = TURN_COLUMNS.index(Columns(Turn).component_name)
TURN_ENVIRONMENT = TURN_COLUMNS.index(Columns(Turn).environment)


def json_text(value: object) -> str:
    return orjson.dumps(value).decode()


def fields_json(item: BaseModel, *, skip_none: bool = False) -> str:
    """`item`'s fields as JSON text: what `model_dump(mode="json")` gives for these models
    (RatedTurn, Action: text, numbers, booleans and free JSON, nothing to convert), at a fifth
    of its cost, which at 1000 items a batch is a few milliseconds. A validated model's
    `__dict__` holds its fields, in their order."""
    values: dict[str, Any] = item.__dict__
    if skip_none:
        values = {name: value for name, value in values.items() if value is not None}
    return json_text(values)


def feedback_row(
    item: FeedbackItem,
    *,
    component: str,
    source: FeedbackSource,
    annotator_id: str,
    owner: str,
    content_hash: str,
    received: float,
    project: int,
) -> Row:
    """A feedback's row (FEEDBACK_COLUMNS), its provenance and component resolved."""
    span = item.correction_span or (None, None)
    turn = item.rated_turn
    return (
        item.feedback_id,
        item.correlation_id,
        item.session_id,
        component,
        None if turn is None else fields_json(turn),
        item.polarity.value,
        item.score,
        item.dimension.value,
        item.confidence,
        item.comment,
        item.correction,
        span[0],
        span[1],
        source.value,
        annotator_id,
        item.step_id,
        item.ts,
        owner,
        content_hash,
        received,
        project,
    )


def turn_row(
    key: str,
    session_id: str,
    component: str,
    turn: RatedTurn,
    principal: Principal,
    now: float,
) -> Row:
    """A turn's row in the principal's project, but for its queue fields (`queued_rows` adds
    them)."""
    environment = None if turn.environment is None else json_text(turn.environment)
    return (
        key,
        session_id,
        component,
        turn.prompt,
        turn.response,
        turn.model,
        environment,
        turn.version,
        principal.key,
        now,
        project_pk(principal.project),
    )


@dataclass(frozen=True)
class Queued:
    rows: list[Row]
    entries: dict[str, Entry]  # by correlation_id: how each stands with the intake rules

    def admitted_by_rules(self) -> list[str]:
        return [key for key, entry in self.entries.items() if entry.rule is not None]


def queued_rows(turns: dict[str, Row], facts: Facts) -> Queued:
    """New turns' rows with their queue fields as their counted feedback and the project's
    intake rules say (TURN_COLUMNS ends with them)."""
    projects = {key: cast("int", row[TURN_PROJECT]) for key, row in turns.items()}
    entries: dict[str, Entry] = {}
    for project in set(projects.values()):
        components = {
            key: str(row[TURN_COMPONENT]) for key, row in turns.items() if projects[key] == project
        }
        environments = {key: turns[key][TURN_ENVIRONMENT] for key in components}
        entries |= new_turns_entries(project, components, facts, environments)
    added = {key: entry.priority for key, entry in entries.items()}
    fields = queue_fields_of(projects, facts, added)
    rows = [
        (*row, entries[key].admitted, entries[key].priority, *fields[key])
        for key, row in turns.items()
    ]
    return Queued(rows, entries)
