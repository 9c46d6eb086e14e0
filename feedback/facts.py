"""What the queue's state of a turn and agreement's moments are worked out from: the counted
feedback on it (feedback.queue_state, feedback.moments).

A write reads the stored facts of the turns it touches once, after their locks and before it
stores its own rows, and folds its own rows in as facts that come after every stored one
(`batch_facts`). Worked out in Python from one read, instead of each keeper recounting in SQL
after the insert: a batch of first ratings on new turns reads nothing back, and its turns are
written with their queue fields as they will stay.
"""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from django.db import connection

from core.columns import Columns
from feedback.bulk import IN_CHUNK, server_bound_cursor
from feedback.models import Feedback, Retraction

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from feedback.bulk import Row

FEEDBACK = Columns(Feedback)
RETRACTION = Columns(Retraction)
FACT_COLUMNS = FEEDBACK(
    "correlation_id",
    "dimension",
    "source",
    "annotator_id",
    "polarity",
    "score",
    "confidence",
    "step_id",
    "submitted_by",
)
# A fact of this write is later than any stored one: its order is past every id.
BATCH_ORDER = 1 << 62


class Fact(NamedTuple):
    order: int  # the row's id; for a row of the write at hand, BATCH_ORDER + its index
    correlation_id: str
    dimension: str
    source: str
    annotator_id: str
    polarity: str
    score: float
    confidence: float
    step_id: str  # "" for a fact about the whole turn
    submitted_by: str  # the credential that sent it: a machine judge's name


Facts = dict[str, list[Fact]]  # by correlation_id, each in order


def stored_facts(project: int, keys: Iterable[str]) -> Facts:
    """The counted (not retracted) feedback of the project on these correlation ids, as
    stored, in order."""
    wanted = sorted(set(keys) - {""})
    facts: Facts = defaultdict(list)
    if not wanted:
        return facts
    qn = connection.ops.quote_name
    feedback, retraction = qn(Feedback._meta.db_table), qn(Retraction._meta.db_table)
    columns = ", ".join(f"f.{qn(c)}" for c in ("id", *FACT_COLUMNS))
    key, retracted = qn(FEEDBACK.correlation_id), qn(RETRACTION.feedback)
    in_project = qn(FEEDBACK.project)
    if connection.vendor == "postgresql":
        # One probe of the (project, correlation_id, ts, id) index a key, its array bound by
        # the server: as `= ANY(array)` the planner scans the table whenever its estimate says
        # so (at tens of thousands of rows without statistics), as feedback.bulk.existing_values
        # says.
        sql = (
            f"SELECT {columns} FROM unnest(%b::text[]) AS wanted(key) CROSS JOIN LATERAL"
            f" (SELECT * FROM {feedback} g WHERE g.{in_project} = %s AND g.{key} = wanted.key"
            " AND NOT EXISTS"
            f" (SELECT 1 FROM {retraction} r WHERE r.{retracted} = g.id)) AS f"
        )
        with server_bound_cursor() as cursor:
            cursor.execute(sql, [wanted, project])
            rows = cursor.fetchall()
    else:
        rows = []
        with connection.cursor() as cursor:
            for start in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[start : start + IN_CHUNK]
                cursor.execute(
                    f"SELECT {columns} FROM {feedback} f"
                    f" LEFT JOIN {retraction} r ON r.{retracted} = f.id"
                    f" WHERE r.id IS NULL AND f.{in_project} = %s"
                    f" AND f.{key} IN ({', '.join(['%s'] * len(chunk))})",
                    [project, *chunk],
                )
                rows.extend(cursor.fetchall())
    for row in sorted(rows):
        facts[row[1]].append(Fact(*row))
    return facts


def batch_facts(columns: Sequence[str], rows: Sequence[Row]) -> list[Fact]:
    """These rows of the write at hand (in `columns` order, in the order they are stored) as
    facts, each later than every stored one; rows about no turn are left out."""
    values = itemgetter(*(columns.index(c) for c in FACT_COLUMNS))
    key = columns.index(FEEDBACK.correlation_id)
    return [Fact(BATCH_ORDER + index, *values(row)) for index, row in enumerate(rows) if row[key]]


def merged(stored: Facts, batch: Iterable[Fact]) -> Facts:
    """The stored facts with the batch's after them, by correlation_id."""
    facts: Facts = defaultdict(list, {key: list(values) for key, values in stored.items()})
    for fact in batch:
        facts[fact.correlation_id].append(fact)
    return facts
