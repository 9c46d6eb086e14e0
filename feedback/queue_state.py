"""What the queue reads of each turn, kept on the turn itself: `ratings_needed` and `priority`.

The queue's scan must not count ratings per request (at 200k turns it would be the whole
table), so the feedback service calls `turns_tally`, inside its transaction, for every turn a
write touches: a rating, an undo, an agent's or environment's feedback, a new turn. The tally recounts those turns from
their stored feedback, so it is right whatever order things arrive in, and repeating it changes
nothing.

- `ratings_needed`: LEARNPORTAL_RATINGS_PER_TURN less the distinct people whose human rating
  counts (a retracted one does not; an agent's or environment's never does); never below 0.
- `priority`: PRIORITY_MACHINE_NEGATIVE when a `self` or `env` feedback is negative (polarity
  negative or a score below 0), plus PRIORITY_UNSURE when a counted rating has a confidence
  below LOW_CONFIDENCE. Higher comes first.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection

from feedback.bulk import IN_CHUNK
from feedback.models import Feedback, Retraction, Turn
from learnportal.protocol import FeedbackPolarity, FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterable

PRIORITY_MACHINE_NEGATIVE = 2
PRIORITY_UNSURE = 1
LOW_CONFIDENCE = 0.5
MACHINE_SOURCES = (FeedbackSource.SELF.value, FeedbackSource.ENV.value)


def turns_tally(correlation_ids: Iterable[str]) -> None:
    """Recount `ratings_needed` and `priority` of the turns among `correlation_ids`."""
    wanted = sorted(set(correlation_ids) - {""})
    # Raw SQL: at a batch of 1000 the ORM's building of `IN (...)` lists cost more than the
    # queries themselves (three lists of 900 parameters a chunk).
    for start in range(0, len(wanted), IN_CHUNK):
        _tally_chunk(wanted[start : start + IN_CHUNK])


def _in(column: str, keys: list[Any]) -> tuple[str, list[Any]]:
    """`column` among `keys`: one array parameter on PostgreSQL, a list of marks elsewhere."""
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)", [keys]
    return f"{column} IN ({', '.join(['%s'] * len(keys))})", list(keys)


def _tally_chunk(keys: list[str]) -> None:
    qn = connection.ops.quote_name
    turn, feedback = qn(Turn._meta.db_table), qn(Feedback._meta.db_table)
    retraction = qn(Retraction._meta.db_table)
    among, params = _in("correlation_id", keys)
    # Most feedback rates no queued turn (an environment's rewards, say): this finds the few
    # that do. Locked, in one order (PostgreSQL; SQLite has one writer): two people rating one
    # turn at once are counted one after the other, each seeing the other's rating, never both
    # from a count that misses the other. The count below is a statement of its own, so that
    # under READ COMMITTED it sees what committed while this one waited for the lock.
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, correlation_id, ratings_needed, priority FROM {turn} "
            f"WHERE {among} ORDER BY correlation_id{lock}",
            params,
        )
        turns = {key: (pk, needed, priority) for pk, key, needed, priority in cursor.fetchall()}
        if not turns:
            return
        among, params = _in("f.correlation_id", list(turns))
        machine = ", ".join(["%s"] * len(MACHINE_SOURCES))
        # What counts: feedback not retracted (feedback.selectors.counted_feedback).
        cursor.execute(
            "SELECT f.correlation_id,"
            " COUNT(DISTINCT CASE WHEN f.source = %s THEN f.annotator_id END),"
            f" COUNT(CASE WHEN f.source IN ({machine}) AND (f.polarity = %s OR f.score < 0)"
            " THEN 1 END),"
            " COUNT(CASE WHEN f.confidence < %s THEN 1 END)"
            f" FROM {feedback} f LEFT JOIN {retraction} r ON r.feedback_id = f.id"
            f" WHERE r.id IS NULL AND {among} GROUP BY f.correlation_id",
            [
                FeedbackSource.HUMAN.value,
                *MACHINE_SOURCES,
                FeedbackPolarity.NEGATIVE.value,
                LOW_CONFIDENCE,
                *params,
            ],
        )
        counts = {row[0]: row[1:] for row in cursor.fetchall()}
        wanted = settings.LEARNPORTAL_RATINGS_PER_TURN
        # One UPDATE for each distinct (needed, priority): a handful, however many turns.
        changes: dict[tuple[int, int], list[int]] = defaultdict(list)
        for key, (pk, needed, priority) in turns.items():
            raters, negative, unsure = counts.get(key, (0, 0, 0))
            new_needed = max(0, wanted - raters)
            new_priority = (PRIORITY_MACHINE_NEGATIVE if negative else 0) + (
                PRIORITY_UNSURE if unsure else 0
            )
            if (new_needed, new_priority) != (needed, priority):
                changes[(new_needed, new_priority)].append(pk)
        for (needed, priority), pks in changes.items():
            among, params = _in("id", pks)
            cursor.execute(
                f"UPDATE {turn} SET ratings_needed = %s, priority = %s WHERE {among}",
                [needed, priority, *params],
            )
