"""Queueing agent turns for the annotators, each correlation_id once."""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction

from core.accounts.roles import Action
from core.events import broadcast_on_commit
from core.projects.selection import project_pk
from feedback.answers import TurnsCreated
from feedback.bulk import Row, insert_rows
from feedback.comparisons.formed import comparisons_from_turns
from feedback.facts import stored_facts
from feedback.intake.admission import admissions_of_new
from feedback.models import Turn
from feedback.queue_state import turns_held
from feedback.selectors.overview import live_counts
from feedback.services.rows import TURN_COLUMNS, queued_rows, turn_row
from feedback.traces.store import Sent, steps_add

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.accounts.principals import Principal
    from feedback.traces.steps import Step
    from learnportal_protocol import RatedTurn


@dataclass(frozen=True)
class TurnInput:
    correlation_id: str
    session_id: str
    component_name: str
    rated_turn: RatedTurn
    steps: Sequence[Step] = ()


def turns_submit(*, principal: Principal, turns: list[TurnInput]) -> TurnsCreated:
    """Queue agent turns for annotators (`POST /api/turns/`)."""
    principal.require(Action.SUBMIT_TURNS)
    return turns_store(principal=principal, turns=turns)


def turns_store(*, principal: Principal, turns: list[TurnInput]) -> TurnsCreated:
    """Store a batch of validated turns (feedback.turn_items), all or nothing; a correlation_id
    already queued, or repeated in the batch, is stored once. The caller checked the role:
    `turns_submit` for the API, feedback.turn_import for a file."""
    now = time.time()
    rows: dict[str, Row] = {}  # the first of each key
    steps: dict[str, Sent] = defaultdict(list)  # every item's, in order
    for index, t in enumerate(turns):
        if t.correlation_id not in rows:
            rows[t.correlation_id] = turn_row(
                t.correlation_id, t.session_id, t.component_name, t.rated_turn, principal, now
            )
        steps[t.correlation_id].extend((index, n, step) for n, step in enumerate(t.steps))
    sent = {key: items for key, items in steps.items() if items}
    try:
        created = _turns_queue(principal, rows, sent)
    except IntegrityError:
        # Another request queued one of these turns between the look and the write (on
        # PostgreSQL, whose COPY then refuses them all): look again, and meet it stored.
        created = _turns_queue(principal, rows, sent)
    return TurnsCreated(received=len(turns), created=created)


def _turns_queue(principal: Principal, rows: dict[str, Row], steps: dict[str, Sent]) -> int:
    """Store the turns among `rows` not stored yet, and the `steps` their turns lack, in one
    transaction: how many turns."""
    project = project_pk(principal.project)
    with transaction.atomic():
        held = turns_held(project, rows)
        new = {key: row for key, row in rows.items() if key not in held}
        # Feedback may have come before its turn (an agent's own, say): it counts from the start.
        queued = queued_rows(new, stored_facts(project, new))
        insert_rows(Turn, TURN_COLUMNS, queued.rows)
        admissions_of_new(project, queued)
        comparisons_from_turns(project, new.keys())
        if steps:
            steps_add(held | turns_held(project, new), steps)
        if new:
            broadcast_on_commit(
                "turns.queued",
                {"count": len(new), "by": principal.name},
                project=principal.project,
                audience=Action.READ_TURNS,
                totals=partial(live_counts, project),
            )
    return len(new)
