"""Per component (of a project) per hour aggregates of calls and scores, kept up to date at
ingest.

A chart over time reads a bounded number of these rows
(feedback.selectors.components.component_hours) instead of the calls and feedback themselves,
so its cost does not grow with the data. An item counts in the hour of its own `ts` (the time
the agent reports, as the stats' `last_called` does). Each batch adds to its hours in one
upsert statement (on SQLite, one per 256 hours and components it touches): no read, no row
lock beyond the upsert's own.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, cast

from django.db import connection

from core.columns import Columns, stored_columns
from core.timing import staged
from feedback.bulk import insert_rows
from feedback.models import ComponentBucket, Experience, Feedback
from learnportal_protocol.models import TIMESTAMP_MAX

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from feedback.bulk import Row

BUCKET_SECONDS = 3600
# A what-if for measurement only: what keeping the buckets costs an ingest batch is the batch
# with them against the batch without (bench/pages/measure.py). Off unless `buckets_left_out()`.
_LEFT_OUT: ContextVar[bool] = ContextVar("buckets_left_out", default=False)
BUCKET = Columns(ComponentBucket)
KEY = BUCKET("project", "component_name", "hour")
COUNTERS = stored_columns(ComponentBucket, leaving_out=("project", "component_name", "hour"))
COLUMNS = (*KEY, *COUNTERS)
# What the tallies read of a feedback or experience row, in the columns the services insert.
FEEDBACK_READ = Columns(Feedback)("project", "component_name", "ts", "score", "confidence")
EXPERIENCE_READ = Columns(Experience)(
    "project", "component_name", "ts", "success", "reward", "duration_ms"
)


def hour_of(ts: float) -> int:
    return int(min(ts, TIMESTAMP_MAX) // BUCKET_SECONDS)  # a row stored before the bound too


# A tally is the COUNTERS of one (project, component, hour), in that order: a plain list, as
# this runs once an item on the ingest path.
Key = tuple[int, str, int]
Tallies = dict[Key, list[float]]
CALLS_TOTAL, CALLS_SUCCESS, CALLS_FAILED, DURATION_COUNT, DURATION_SUM = (
    COUNTERS.index(c)
    for c in BUCKET(
        "calls_total", "calls_success", "calls_failed", "duration_count", "duration_sum"
    )
)
SCORE_COUNT, SCORE_WEIGHT, SCORE_WEIGHTED_SUM = (
    COUNTERS.index(c) for c in BUCKET("score_count", "score_weight", "score_weighted_sum")
)
# Counts are integers and sums floats in every row: PostgreSQL's arrays take one type each.
ZERO = tuple(
    0.0 if ComponentBucket._meta.get_field(c).get_internal_type() == "FloatField" else 0
    for c in COUNTERS
)


def _tally(tallies: Tallies, project: int, component: str, ts: float) -> list[float]:
    key = (project, component, hour_of(ts))
    tally = tallies.get(key)
    if tally is None:
        tally = tallies[key] = list(ZERO)
    return tally


@contextmanager
def buckets_left_out() -> Iterator[None]:
    """Ingest inside leaves the buckets as they are (in this thread or task): never in a server,
    whose charts would then miss those items for good; for a measurement's what-if only."""
    token = _LEFT_OUT.set(True)
    try:
        yield
    finally:
        _LEFT_OUT.reset(token)


@staged("hour buckets: `buckets_add_feedback`")
def buckets_add_feedback(columns: Sequence[str], rows: Iterable[Row], *, sign: int = 1) -> None:
    """Add the scores of feedback rows (in `columns` order, as the services insert them) to
    their components' hours; `sign=-1` takes them back (a retraction)."""
    if _LEFT_OUT.get():
        return
    p, c, t, s, w = (columns.index(n) for n in FEEDBACK_READ)
    tallies: Tallies = {}
    for row in rows:
        if not row[c]:
            continue
        tally = _tally(tallies, cast("int", row[p]), str(row[c]), float(row[t] or 0))
        confidence = sign * float(row[w] or 0)
        tally[SCORE_COUNT] += sign
        tally[SCORE_WEIGHT] += confidence
        tally[SCORE_WEIGHTED_SUM] += confidence * float(row[s] or 0)
    _upsert(tallies)


def buckets_retract(
    project: int, component_name: str, ts: float, score: float, confidence: float
) -> None:
    """Take one retracted feedback's score back out of its hour."""
    buckets_add_feedback(FEEDBACK_READ, [(project, component_name, ts, score, confidence)], sign=-1)


@staged("hour buckets: `buckets_add_experiences`")
def buckets_add_experiences(columns: Sequence[str], rows: Iterable[Row]) -> None:
    """Add experience rows (in `columns` order) to their components' hours as calls: a call
    succeeded as the stats say (`success`, else `reward >= 0`)."""
    if _LEFT_OUT.get():
        return
    p, c, t, ok, r, d = (columns.index(n) for n in EXPERIENCE_READ)
    tallies: Tallies = {}
    for row in rows:
        if not row[c]:
            continue
        tally = _tally(tallies, cast("int", row[p]), str(row[c]), float(row[t] or 0))
        success = row[ok]
        if success is None:
            success = float(row[r] or 0) >= 0
        tally[CALLS_TOTAL] += 1
        tally[CALLS_SUCCESS if success else CALLS_FAILED] += 1
        if row[d] is not None:
            tally[DURATION_COUNT] += 1
            tally[DURATION_SUM] += float(row[d] or 0)
    _upsert(tallies)


def _upsert(tallies: Tallies) -> None:
    if not tallies:
        return
    qn = connection.ops.quote_name
    table = qn(ComponentBucket._meta.db_table)
    added = ", ".join(f"{qn(c)} = {table}.{qn(c)} + excluded.{qn(c)}" for c in COUNTERS)
    rows: list[Row] = [(*key, *tally) for key, tally in sorted(tallies.items())]
    insert_rows(
        ComponentBucket,
        COLUMNS,
        rows,
        on_conflict=f"ON CONFLICT ({', '.join(KEY)}) DO UPDATE SET {added}",
        distinct=True,  # tallied above, one row a key
    )
