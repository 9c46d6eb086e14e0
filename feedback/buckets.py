"""Per component per hour aggregates of calls and scores, kept up to date at ingest.

A chart over time reads a bounded number of these rows (feedback.selectors.component_hours)
instead of the calls and feedback themselves, so its cost does not grow with the data. An
item counts in the hour of its own `ts` (the time the agent reports, as the stats'
`last_called` does). Each batch adds to its hours in one upsert statement (on SQLite, one per
99 hours and components it touches): no read, no row lock beyond the upsert's own.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING

from django.db import connection

from feedback.models import ComponentBucket

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from feedback.bulk import Row

BUCKET_SECONDS = 3600
# The spec bounds `ts` below only; a later time counts in this one's hour rather than
# overflow the 64-bit hour (1e13 s is some 300,000 years from now).
LATEST_TS = 1e13
COUNTERS = (
    "calls_total",
    "calls_success",
    "calls_failed",
    "duration_count",
    "duration_sum",
    "score_count",
    "score_weight",
    "score_weighted_sum",
)
COLUMNS = ("component_name", "hour", *COUNTERS)


def hour_of(ts: float) -> int:
    return int(min(ts, LATEST_TS) // BUCKET_SECONDS)


@dataclass
class Tally:
    calls_total: int = 0
    calls_success: int = 0
    calls_failed: int = 0
    duration_count: int = 0
    duration_sum: float = 0.0
    score_count: int = 0
    score_weight: float = 0.0
    score_weighted_sum: float = 0.0


Key = tuple[str, int]


def buckets_add_feedback(columns: Sequence[str], rows: Iterable[Row], *, sign: int = 1) -> None:
    """Add the scores of feedback rows (in `columns` order, as the services insert them) to
    their components' hours; `sign=-1` takes them back (a retraction)."""
    at = {name: columns.index(name) for name in ("component_name", "ts", "score", "confidence")}
    tallies: dict[Key, Tally] = {}
    for row in rows:
        component = row[at["component_name"]]
        if not component:
            continue
        ts, score, confidence = (float(row[at[n]] or 0) for n in ("ts", "score", "confidence"))
        tally = tallies.setdefault((str(component), hour_of(ts)), Tally())
        tally.score_count += sign
        tally.score_weight += sign * confidence
        tally.score_weighted_sum += sign * confidence * score
    _upsert(tallies)


def buckets_retract(component_name: str, ts: float, score: float, confidence: float) -> None:
    """Take one retracted feedback's score back out of its hour."""
    columns = ("component_name", "ts", "score", "confidence")
    buckets_add_feedback(columns, [(component_name, ts, score, confidence)], sign=-1)


def buckets_add_experiences(columns: Sequence[str], rows: Iterable[Row]) -> None:
    """Add experience rows (in `columns` order) to their components' hours as calls: a call
    succeeded as the stats say (`success`, else `reward >= 0`)."""
    names = ("component_name", "ts", "success", "reward", "duration_ms")
    at = {name: columns.index(name) for name in names}
    tallies: dict[Key, Tally] = {}
    for row in rows:
        component = row[at["component_name"]]
        if not component:
            continue
        tally = tallies.setdefault((str(component), hour_of(float(row[at["ts"]] or 0))), Tally())
        success = row[at["success"]]
        if success is None:
            success = float(row[at["reward"]] or 0) >= 0
        tally.calls_total += 1
        if success:
            tally.calls_success += 1
        else:
            tally.calls_failed += 1
        duration = row[at["duration_ms"]]
        if duration is not None:
            tally.duration_count += 1
            tally.duration_sum += float(duration)
    _upsert(tallies)


def _upsert(tallies: dict[Key, Tally]) -> None:
    if not tallies:
        return
    qn = connection.ops.quote_name
    table = qn(ComponentBucket._meta.db_table)
    names = ", ".join(qn(c) for c in COLUMNS)
    added = ", ".join(f"{qn(c)} = {table}.{qn(c)} + excluded.{qn(c)}" for c in COUNTERS)
    rows = [(name, hour, *astuple(t)) for (name, hour), t in sorted(tallies.items())]
    upsert = f"ON CONFLICT (component_name, hour) DO UPDATE SET {added}"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One array a column: a 240-row VALUES list costs PostgreSQL 4-6x as much to parse
            # and plan. Allowed here, as the keys are distinct (tallied above).
            fields = [ComponentBucket._meta.get_field(c) for c in COLUMNS]
            arrays = ", ".join(f"%s::{f.db_type(connection)}[]" for f in fields)
            cursor.execute(
                f"INSERT INTO {table} ({names}) SELECT * FROM unnest({arrays}) {upsert}",
                [list(column) for column in zip(*rows, strict=True)],
            )
            return
        step = (connection.features.max_query_params or 999) // len(COLUMNS)
        for start in range(0, len(rows), step):
            chunk = rows[start : start + step]
            marks = ", ".join(["(" + ", ".join(["%s"] * len(COLUMNS)) + ")"] * len(chunk))
            cursor.execute(
                f"INSERT INTO {table} ({names}) VALUES {marks} {upsert}",
                [value for row in chunk for value in row],
            )
