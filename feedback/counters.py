"""Counts kept at ingest, so that a page shows them without counting a table of 1M rows.

Each project has its own counters (its overview counts its own feedback). The feedback service
adds to a project's counter in the transaction that writes what it counts, by what
it actually wrote (an idempotent retry writes nothing, and adds nothing). A counter is a few
rows (slots): each process writes its own, so that concurrent writers never queue on one row
lock, and one transaction only ever locks one slot (no lock order to get wrong). Reading sums
the slots. `counters_rebuild` recounts from the stored rows (manage.py feedback_recount).
"""

from __future__ import annotations

import os

from django.db import connection
from django.db.models import Count

from core.columns import Columns
from feedback.models import Counter, Feedback, Retraction

SLOTS = 8
PROJECT, NAME, SLOT, VALUE = Columns(Counter)("project", "name", "slot", "value")
# Feedback that counts: stored less retracted (feedback.selectors.visibility.counted_feedback).
FEEDBACK_COUNTED = "feedback.counted"


def _slot() -> int:
    return os.getpid() % SLOTS


def counter_add(name: str, delta: int, *, project: int) -> None:
    """Add `delta` to the project's counter, inside the caller's transaction."""
    if not delta:
        return
    table = connection.ops.quote_name(Counter._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({PROJECT}, {NAME}, {SLOT}, {VALUE}) VALUES (%s, %s, %s, %s) "
            f"ON CONFLICT ({PROJECT}, {NAME}, {SLOT}) "
            f"DO UPDATE SET {VALUE} = {table}.{VALUE} + excluded.{VALUE}",
            [project, name, _slot(), delta],
        )


def counter_value(name: str, *, project: int) -> int:
    """A project's counter's value: the sum of its slots (at most SLOTS rows, by the unique
    index)."""
    rows = Counter.objects.filter(project_id=project, name=name)
    return sum(rows.values_list("value", flat=True))


def counters_rebuild() -> dict[int, dict[str, int]]:
    """Every project's counters recounted from the stored rows, in the caller's transaction:
    by project id, each counter's value (a project with no feedback counts 0 and is left out)."""
    stored = Feedback.objects.order_by().values("project").annotate(n=Count("id"))
    retracted = dict(
        Retraction.objects.order_by()
        .values("feedback__project")
        .annotate(n=Count("id"))
        .values_list("feedback__project", "n")
    )
    counted = {row["project"]: row["n"] - retracted.get(row["project"], 0) for row in stored}
    Counter.objects.filter(name=FEEDBACK_COUNTED).delete()
    Counter.objects.bulk_create(
        Counter(project_id=project, name=FEEDBACK_COUNTED, slot=0, value=value)
        for project, value in sorted(counted.items())
    )
    return {project: {FEEDBACK_COUNTED: value} for project, value in sorted(counted.items())}
