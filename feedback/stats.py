"""Per-component aggregates of a project, kept up to date as data arrives (read by
feedback.selectors)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from django.db import connection

from core.columns import Columns, stored_columns
from core.timing import staged
from feedback.bulk import Row, insert_rows
from feedback.models import ComponentStats
from feedback.sketch import DurationSketch
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterable

STATS = Columns(ComponentStats)
# Each source's own tally of scores, beside the total over them all (ComponentStats).
SCORE_SOURCES = tuple(source.value for source in FeedbackSource)


@functools.cache
def source_columns(source: str) -> tuple[str, str, str]:
    """A source's count, weight (sum of confidences) and weighted sum columns."""
    count, weight, weighted_sum = STATS(
        f"{source}_count", f"{source}_weight", f"{source}_weighted_sum"
    )
    return count, weight, weighted_sum


SOURCE_COLUMNS = tuple(column for source in SCORE_SOURCES for column in source_columns(source))
# The totals over every source, as avg_score reads them: count, weight and weighted sum.
ALL_COLUMNS = STATS("feedback_count", "score_weight", "score_weighted_sum")
SCORE_COLUMNS = (*ALL_COLUMNS, *SOURCE_COLUMNS)
ZERO_ROW_COLUMNS = stored_columns(ComponentStats)


@dataclass
class ScoreDelta:
    """Scores added to (or, with `sign=-1`, taken from) one component: in all, and by source
    as [count, weight, weighted sum]."""

    count: int = 0
    weight: float = 0.0
    weighted_sum: float = 0.0
    by_source: dict[str, list[float]] = field(default_factory=dict)

    def add(self, score: float, confidence: float, source: str, *, sign: int = 1) -> None:
        weight = sign * confidence
        self.count += sign
        self.weight += weight
        self.weighted_sum += weight * score
        tally = self.by_source.get(source)
        if tally is None:
            tally = self.by_source[source] = [0, 0.0, 0.0]
        tally[0] += sign
        tally[1] += weight
        tally[2] += weight * score

    def source_values(self) -> dict[str, float]:
        """The by-source tallies as their columns' values."""
        values: dict[str, float] = {}
        for source, tally in self.by_source.items():
            values.update(zip(source_columns(source), tally, strict=True))
        return values


@dataclass
class CallDelta:
    success: int = 0
    failed: int = 0
    durations: list[float] = field(default_factory=list)
    last_called: float = 0.0

    def add(self, *, succeeded: bool, duration_ms: float | None, ts: float) -> None:
        if succeeded:
            self.success += 1
        else:
            self.failed += 1
        if duration_ms is not None:
            self.durations.append(duration_ms)
        self.last_called = max(self.last_called, ts)


# Each column's zero of its own type: on PostgreSQL a column's values go as one typed array.
_ZEROS: dict[str, str | float | bytes] = {
    c: 0.0 if ComponentStats._meta.get_field(c).get_internal_type() == "FloatField" else 0
    for c in ZERO_ROW_COLUMNS
}
_ZEROS[STATS.duration_sketch] = b""
_NAME, _PROJECT = STATS("component_name", "project")
_KEY = f"{_PROJECT}, {_NAME}"


def _zero_row(project: int, name: str, values: dict[str, float] | None = None) -> Row:
    """A project's component's row of zeros, but for `values` (by column)."""
    row = dict(_ZEROS)
    row[_PROJECT] = project
    row[_NAME] = name
    row.update(values or {})
    return tuple(row[c] for c in ZERO_ROW_COLUMNS)


@staged("`stats_add_scores` (upsert)")
def stats_add_scores(project: int, deltas: dict[str, ScoreDelta]) -> None:
    """Add feedback scores to the project's components: an atomic upsert, no read needed."""
    deltas = {name: d for name, d in deltas.items() if name}
    if not deltas:
        return
    table = connection.ops.quote_name(ComponentStats._meta.db_table)
    rows = [
        _zero_row(
            project,
            name,
            dict(zip(ALL_COLUMNS, (d.count, d.weight, d.weighted_sum), strict=True))
            | d.source_values(),
        )
        for name, d in sorted(deltas.items())
    ]
    added = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in SCORE_COLUMNS)
    insert_rows(
        ComponentStats,
        ZERO_ROW_COLUMNS,
        rows,
        on_conflict=f"ON CONFLICT ({_KEY}) DO UPDATE SET {added}",
        distinct=True,  # one row a component
    )


def stats_know(project: int, names: Iterable[str]) -> list[str]:
    """Make these components of the project known (a row of zeros for each new one, which
    adapt and plans then weigh) without counting anything: their names, sorted."""
    known = sorted(set(names) - {""})
    if known:
        insert_rows(
            ComponentStats,
            ZERO_ROW_COLUMNS,
            [_zero_row(project, name) for name in known],
            on_conflict=f"ON CONFLICT ({_KEY}) DO NOTHING",
        )
    return known


@staged("`stats_add_calls` (lock, sketch merge, UPDATE)")
def stats_add_calls(project: int, deltas: dict[str, CallDelta]) -> None:
    """Add calls to the project's components, merging each duration sketch under a row lock."""
    deltas = {name: d for name, d in deltas.items() if name}
    if not deltas:
        return
    names = stats_know(project, deltas)
    table = connection.ops.quote_name(ComponentStats._meta.db_table)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    # Raw: the few columns the merge needs, no model instances (one a component, each batch).
    among = ", ".join(["%s"] * len(names))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, {_NAME}, {STATS.p95_duration_ms}, {STATS.duration_sketch} FROM {table} "
            f"WHERE {_PROJECT} = %s AND {_NAME} IN ({among}) ORDER BY {_NAME}{lock}",
            [project, *names],
        )
        locked = cursor.fetchall()
    updates = []
    last = STATS.last_called
    for pk, component, stored_p95, stored_sketch in locked:
        delta = deltas[component]
        # bytes, as the database driver takes it (a PostgreSQL driver may read a memoryview).
        p95, sketch_bytes = stored_p95, bytes(stored_sketch)
        if delta.durations:
            sketch = DurationSketch.from_bytes(sketch_bytes)
            sketch.add(np.asarray(delta.durations))
            p95 = sketch.quantile(0.95)
            sketch_bytes = sketch.to_bytes()
        updates.append(
            (
                delta.success + delta.failed,
                delta.success,
                delta.failed,
                len(delta.durations),
                float(sum(delta.durations)),
                p95,
                sketch_bytes,
                delta.last_called,
                pk,
            )
        )
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {table} SET {_CALLS_ADDED}, {STATS.p95_duration_ms} = %s, "
            f"{STATS.duration_sketch} = %s, {last} = CASE WHEN {last} > %s THEN {last} ELSE %s END "
            "WHERE id = %s",
            [(*row[:7], row[7], row[7], row[8]) for row in updates],
        )


# What a batch of calls adds to, in the order of the UPDATE's first five parameters.
_CALLS_ADDED = ", ".join(
    f"{c} = {c} + %s"
    for c in STATS("calls_total", "calls_success", "calls_failed", "duration_count", "duration_sum")
)


_AVERAGED = f"{STATS.score_weight}, {STATS.score_weighted_sum}"


@staged("`component_avg_score`")
def component_avg_score(project: int, component_name: str) -> float | None:
    # Raw, as it runs once a feedback request: the ORM took 0.5 ms to build it, the query 0.02.
    table = connection.ops.quote_name(ComponentStats._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_AVERAGED} FROM {table} WHERE {_PROJECT} = %s AND {_NAME} = %s",
            [project, component_name],
        )
        row = cursor.fetchone()
    if row is None or row[0] <= 0:
        return None
    return float(row[1] / row[0])
