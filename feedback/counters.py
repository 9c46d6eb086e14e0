"""Counts kept at ingest, so that a page shows them without counting a table of 1M rows.

The feedback service adds to a counter in the transaction that writes what it counts, by what
it actually wrote (an idempotent retry writes nothing, and adds nothing). A counter is a few
rows (slots): each process writes its own, so that concurrent writers never queue on one row
lock, and one transaction only ever locks one slot (no lock order to get wrong). Reading sums
the slots. `counters_rebuild` recounts from the stored rows (manage.py feedback_recount).
"""

from __future__ import annotations

import os

from django.db import connection

from core.columns import Columns
from feedback.models import Counter, Feedback, Retraction

SLOTS = 8
NAME, SLOT, VALUE = Columns(Counter)("name", "slot", "value")
# Feedback that counts: stored less retracted (feedback.selectors.visibility.counted_feedback).
FEEDBACK_COUNTED = "feedback.counted"


def _slot() -> int:
    return os.getpid() % SLOTS


def counter_add(name: str, delta: int) -> None:
    """Add `delta` to a counter, inside the caller's transaction."""
    if not delta:
        return
    table = connection.ops.quote_name(Counter._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({NAME}, {SLOT}, {VALUE}) VALUES (%s, %s, %s) "
            f"ON CONFLICT ({NAME}, {SLOT}) DO UPDATE SET {VALUE} = {table}.{VALUE} + excluded.{VALUE}",
            [name, _slot(), delta],
        )


def counter_value(name: str) -> int:
    """A counter's value: the sum of its slots (at most SLOTS rows, by the unique index)."""
    return sum(Counter.objects.filter(name=name).values_list("value", flat=True))


def counters_rebuild() -> dict[str, int]:
    """Every counter recounted from the stored rows, in the caller's transaction."""
    counted = Feedback.objects.count() - Retraction.objects.count()
    Counter.objects.filter(name=FEEDBACK_COUNTED).delete()
    Counter.objects.create(name=FEEDBACK_COUNTED, slot=0, value=counted)
    return {FEEDBACK_COUNTED: counted}
