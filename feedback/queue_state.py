"""What the queue reads of each turn, kept on the turn itself: `ratings_needed` and `priority`.

The queue's scan must not count ratings per request (at 200k turns it would be the whole
table), so the feedback service keeps both, inside its transaction, for every turn a write
touches: a rating, an undo, an agent's or environment's feedback, a new turn. They are worked
out from the turn's counted feedback (feedback.facts), so they are right whatever order things
arrive in, and working them out again changes nothing. A new turn is written with them.

- `ratings_needed`: the ratings per turn of the turn's project (core.projects.rules) less the
  distinct people whose human rating of the whole turn counts (a retracted one does not; an
  agent's or environment's never does; a rating of one of its steps rates the step); never
  below 0.
- `priority`: the project's `priority_negative` when a `self` or `env` feedback is negative
  (polarity negative or a score below 0), plus its `priority_unsure` when a counted feedback has
  a confidence below LOW_CONFIDENCE (core.projects.rules.QueueRules), plus the priority of the
  intake rule that let the turn in (`admitted_priority`, feedback.intake). Higher comes first.

Locking (PostgreSQL; SQLite has one writer): a write locks the stored turns it touches, in one
order, before it reads their facts (`turns_held`), so that two people rating one turn at once
are counted one after the other, each seeing the other's rating, never both from a read that
misses the other.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, NamedTuple

from django.db import connection, transaction

from core.columns import Columns
from core.projects.models import LOW_CONFIDENCE
from core.projects.rules import queue_rules_of
from feedback.bulk import IN_CHUNK, server_bound_cursor
from feedback.facts import stored_facts
from feedback.models import Turn
from learnportal_protocol import FeedbackPolarity, FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from core.projects.rules import QueueRules
    from feedback.facts import Fact

MACHINE_SOURCES = (FeedbackSource.SELF.value, FeedbackSource.ENV.value)
HUMAN = FeedbackSource.HUMAN.value
NEGATIVE = FeedbackPolarity.NEGATIVE.value

TURN = Columns(Turn)
QueueFields = tuple[int, int]  # ratings_needed, priority


class HeldTurn(NamedTuple):
    pk: int
    ratings_needed: int
    priority: int
    project: int
    admitted: bool
    admitted_priority: int
    component: str


Held = dict[str, HeldTurn]  # by correlation_id


def queue_fields_of(
    projects: Mapping[str, int],
    facts: Mapping[str, list[Fact]],
    admitted_priority: Mapping[str, int] | None = None,
) -> dict[str, QueueFields]:
    """The `ratings_needed` and `priority` of the turns `projects` (correlation_id: project id)
    from their counted feedback, and the priority their intake rule adds."""
    rules = queue_rules_of(set(projects.values()))
    added = admitted_priority or {}
    return {
        key: _queue_fields(facts.get(key, ()), rules[project], added.get(key, 0))
        for key, project in projects.items()
    }


def _queue_fields(facts: Iterable[Fact], rules: QueueRules, added: int) -> QueueFields:
    raters: set[str] = set()
    negative = unsure = False
    for fact in facts:
        if fact.source == HUMAN:
            if not fact.step_id:  # a step is rated as a unit of its own (feedback.raters)
                raters.add(fact.annotator_id)
        elif fact.source in MACHINE_SOURCES and (fact.polarity == NEGATIVE or fact.score < 0):
            negative = True
        if fact.confidence < LOW_CONFIDENCE:
            unsure = True
    needed = rules.ratings_per_turn - len(raters)
    return (needed if needed > 0 else 0), (
        (rules.priority_negative if negative else 0)
        + (rules.priority_unsure if unsure else 0)
        + added
    )


def turns_held(project: int, correlation_ids: Iterable[str]) -> Held:
    """The project's stored turns among `correlation_ids`, locked until the transaction ends
    (PostgreSQL), in correlation_id order: what their queue fields are now."""
    wanted = sorted(set(correlation_ids) - {""})
    if not wanted:
        return {}
    table = connection.ops.quote_name(Turn._meta.db_table)
    key, in_project = TURN("correlation_id", "project")
    read = (
        "id",
        key,
        *TURN("ratings_needed", "priority", "project", "admitted", "admitted_priority"),
        TURN.component_name,
    )
    columns = ", ".join(read)
    if connection.vendor == "postgresql":
        # A probe of the unique index a key, locked as it is found: in the array's order.
        sql = (
            f"SELECT {', '.join(f't.{c}' for c in read)} FROM unnest(%b::text[]) AS wanted(key)"
            f" CROSS JOIN LATERAL (SELECT {columns} FROM {table}"
            f" WHERE {in_project} = %s AND {key} = wanted.key FOR UPDATE) AS t"
        )
        with server_bound_cursor() as cursor:
            cursor.execute(sql, [wanted, project])
            rows: list[Any] = cursor.fetchall()
    else:
        rows = []
        with connection.cursor() as cursor:
            for start in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[start : start + IN_CHUNK]
                marks = ", ".join(["%s"] * len(chunk))
                cursor.execute(
                    f"SELECT {columns} FROM {table} WHERE {in_project} = %s AND {key} IN ({marks})",
                    [project, *chunk],
                )
                rows.extend(cursor.fetchall())
    return {key: HeldTurn(pk, *fields) for pk, key, *fields in rows}


def turns_refresh(held: Held, facts: Mapping[str, list[Fact]]) -> None:
    """Write the queue fields of these held turns where their facts now say otherwise."""
    # One UPDATE for each distinct (needed, priority): a handful, however many turns.
    changes: dict[QueueFields, list[int]] = defaultdict(list)
    now = queue_fields_of(
        {key: turn.project for key, turn in held.items()},
        facts,
        {key: turn.admitted_priority for key, turn in held.items()},
    )
    for key, turn in held.items():
        fields = now[key]
        if fields != (turn.ratings_needed, turn.priority):
            changes[fields].append(turn.pk)
    if not changes:
        return
    update = (
        f"UPDATE {connection.ops.quote_name(Turn._meta.db_table)}"
        f" SET {TURN.ratings_needed} = %s, {TURN.priority} = %s WHERE "
    )
    if connection.vendor == "postgresql":
        with server_bound_cursor() as cursor:
            for (needed, priority), pks in changes.items():
                cursor.execute(update + "id = ANY(%s)", [needed, priority, pks])
        return
    with connection.cursor() as cursor:
        for (needed, priority), pks in changes.items():
            for start in range(0, len(pks), IN_CHUNK):
                chunk = pks[start : start + IN_CHUNK]
                marks = ", ".join(["%s"] * len(chunk))
                cursor.execute(update + f"id IN ({marks})", [needed, priority, *chunk])


def turns_tally(project: int, correlation_ids: Iterable[str]) -> None:
    """Work out `ratings_needed` and `priority` of the project's stored turns among
    `correlation_ids` afresh from their stored feedback."""
    held = turns_held(project, correlation_ids)
    if held:
        turns_refresh(held, stored_facts(project, held))


RECOUNT_CHUNK = 5000


def project_recount(project_id: int) -> int:
    """Work out the queue fields of every turn of the project afresh (after its queue rules
    changed), a chunk a transaction: how many turns."""
    after, done = 0, 0
    while True:
        rows = list(
            Turn.objects.filter(project_id=project_id, pk__gt=after)
            .order_by("pk")
            .values_list("pk", "correlation_id")[:RECOUNT_CHUNK]
        )
        if not rows:
            return done
        with transaction.atomic():
            turns_tally(project_id, (key for _, key in rows))
        after, done = rows[-1][0], done + len(rows)
