"""The 1M workspace written in bulk by the driver, inside the app's process (bench/child.py)."""

from __future__ import annotations

import time
from typing import Any

from bench.annotation.data import Built, generate
from bench.harness.rawdb import driver_insert


def _columns(model: Any) -> list[Any]:
    return [f for f in model._meta.concrete_fields if not f.primary_key]


def bulk_load(model: Any, rows: list[dict[str, Any]], chunk: int = 50_000) -> None:
    """Rows written with the driver's own bulk path, every concrete column: a field that the
    rows do not name gets its model default (so that columns added later still load)."""
    from django.db import connection, transaction

    fields = _columns(model)
    names = [f.column for f in fields]
    defaults = {f.column: f.get_default() for f in fields}
    connection.ensure_connection()
    raw: Any = connection.connection
    for begin in range(0, len(rows), chunk):
        values = [
            tuple(row.get(n, defaults[n]) for n in names) for row in rows[begin : begin + chunk]
        ]
        with transaction.atomic():
            driver_insert(raw, connection.vendor, model._meta.db_table, names, values)


def _queue_columns(built: Built, ratings_per_turn: int) -> None:
    """What a queue keeps on each turn, where the model has it (work-queue's denormalised
    `ratings_needed` and `priority`): the same values its feedback service would tally."""
    from feedback.models import Turn

    names = {f.name for f in Turn._meta.concrete_fields}
    if not names & {"ratings_needed", "priority"}:
        return
    raters: dict[str, set[str]] = {}
    negative: set[str] = set()
    for row in built.feedback:
        if row["source"] == "human":
            raters.setdefault(row["correlation_id"], set()).add(row["annotator_id"])
        elif row["score"] < 0:
            negative.add(row["correlation_id"])
    for turn in built.turns:
        key = turn["correlation_id"]
        if "ratings_needed" in names:
            turn["ratings_needed"] = max(0, ratings_per_turn - len(raters.get(key, ())))
        if "priority" in names:
            turn["priority"] = 1 if key in negative else 0


def recount() -> None:
    """What the feedback service keeps at ingest (agreement's moments and sums per question,
    the overview's counters), recounted from the bulk-written rows as `manage.py feedback_recount` does."""
    from django.db import transaction

    from feedback.counters import counters_rebuild
    from feedback.moments import moments_rebuild
    from feedback.question_sums import question_sums_rebuild

    with transaction.atomic():
        moments_rebuild()
        counters_rebuild()
    question_sums_rebuild()


def analyze() -> None:
    """Fresh statistics, and on PostgreSQL the visibility map that autovacuum keeps for a
    table that grew over weeks (without it, an index-only scan reads the heap too)."""
    from django.db import connection

    with connection.cursor() as cursor:
        vacuum = connection.vendor == "postgresql" and not connection.in_atomic_block
        cursor.execute("VACUUM ANALYZE" if vacuum else "ANALYZE")


def child_build(*, turns: int, feedback: int, seed: int) -> dict[str, Any]:
    from django.conf import settings

    from feedback.models import Feedback, Turn

    t0 = time.perf_counter()
    built = generate(turns, feedback, seed)
    _queue_columns(built, int(getattr(settings, "LEARNPORTAL_RATINGS_PER_TURN", 1)))
    generated = time.perf_counter() - t0
    t1 = time.perf_counter()
    bulk_load(Turn, built.turns)
    bulk_load(Feedback, built.feedback)
    inserted = time.perf_counter() - t1
    t2 = time.perf_counter()
    recount()
    recounted = time.perf_counter() - t2
    analyze()
    human = [r for r in built.feedback if r["source"] == "human"]
    return {
        "turns": Turn.objects.count(),
        "feedback": Feedback.objects.count(),
        "human": len(human),
        "human_turns": len({r["correlation_id"] for r in human}),
        "corrections_with_span": sum(1 for r in built.feedback if r["span_start"] is not None),
        "generate_s": generated,
        "insert_s": inserted,
        "recount_s": recounted,
        "rows_s": (turns + feedback) / inserted,
    }
