"""A component's figures as pages and refinement read them, within its project (a component is
its project's own: two projects may name one alike): its performance record, its hours,
its durations, its newest feedback and corrections, and what evidence its record rests on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import connection

from core.columns import Columns
from core.projects.selection import project_pk
from feedback.buckets import BUCKET_SECONDS
from feedback.filters import FeedbackFilters
from feedback.models import ComponentBucket, ComponentStats
from feedback.selectors.explorer import feedback_page
from feedback.selectors.turns import turn_ids
from feedback.selectors.visibility import counted_feedback
from feedback.sketch import DurationSketch, coarse_histogram

if TYPE_CHECKING:
    from core.accounts.principals import Principal


def component_names(project: int) -> list[str]:
    """Every component of the project that has been called or rated, by name."""
    return list(
        ComponentStats.objects.filter(project=project)
        .order_by("component_name")
        .values_list("component_name", flat=True)
    )


STATS = Columns(ComponentStats)
_RECORD_COLUMNS = STATS(
    "component_name",
    "calls_total",
    "calls_success",
    "calls_failed",
    "duration_count",
    "duration_sum",
    "score_weight",
    "score_weighted_sum",
    "last_called",
    "p95_duration_ms",
)


def component_records(project: int, component_name: str = "") -> list[dict[str, Any]]:
    """The project's ComponentPerformanceRecords: one indexed row a component, never the calls
    themselves.

    Raw SQL over plain number columns: for this one-row read, building the ORM query cost
    several times what running it does, and learn/stats/req is the agents' hot path.
    """
    table = connection.ops.quote_name(ComponentStats._meta.db_table)
    params: list[int | str] = [project]
    where = f"WHERE {STATS.project} = %s "
    if component_name:
        where, params = f"{where}AND {STATS.component_name} = %s ", [project, component_name]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(_RECORD_COLUMNS)} FROM {table} {where}"
            f"ORDER BY {STATS.component_name}",
            params,
        )
        rows = cursor.fetchall()
    return [_record(*row) for row in rows]


def _record(
    name: str,
    calls_total: int,
    calls_success: int,
    calls_failed: int,
    duration_count: int,
    duration_sum: float,
    score_weight: float,
    score_weighted_sum: float,
    last_called: float,
    p95_duration_ms: float,
) -> dict[str, Any]:
    """As ComponentStats.as_record, from the columns themselves."""
    return {
        "component_name": name,
        "calls_total": calls_total,
        "calls_success": calls_success,
        "calls_failed": calls_failed,
        "avg_duration_ms": float(duration_sum) / duration_count if duration_count else 0.0,
        "avg_score": float(score_weighted_sum) / score_weight if score_weight > 0 else 0.0,
        "last_called": float(last_called),
        "p95_duration_ms": float(p95_duration_ms),
    }


def component_figures(record: dict[str, Any]) -> dict[str, float | None]:
    """What a page shows of a component's calls: None (shown "—"), not 0, where there is no call
    to measure (the wire record keeps its zeros, as the contract says)."""
    calls = record["calls_total"]
    if not calls:
        return {"success_rate": None, "avg_duration_ms": None, "p95_duration_ms": None}
    return {
        "success_rate": 100 * record["calls_success"] / calls,
        "avg_duration_ms": record["avg_duration_ms"],
        "p95_duration_ms": record["p95_duration_ms"],
    }


@dataclass(frozen=True)
class ComponentHour:
    """One hour of one component (feedback.buckets), as a chart reads it."""

    start: float  # epoch seconds
    calls: int
    calls_success: int
    avg_duration_ms: float | None
    scores: int
    avg_score: float | None  # confidence-weighted, as the stats' avg_score


def component_hours(project: int, component_name: str, limit: int) -> list[ComponentHour]:
    """A component's newest `limit` hours with calls or scores, oldest first: one range of the
    bucket index, whatever the number of calls."""
    rows = (
        ComponentBucket.objects.filter(project=project, component_name=component_name)
        .order_by("-hour")
        .values_list(
            "hour",
            "calls_total",
            "calls_success",
            "duration_count",
            "duration_sum",
            "score_count",
            "score_weight",
            "score_weighted_sum",
        )[:limit]
    )
    return [
        ComponentHour(
            start=float(hour * BUCKET_SECONDS),
            calls=calls,
            calls_success=success,
            avg_duration_ms=duration_sum / durations if durations else None,
            scores=scores,
            avg_score=weighted_sum / weight if weight > 0 else None,
        )
        for hour, calls, success, durations, duration_sum, scores, weight, weighted_sum in list(
            rows
        )[::-1]
    ]


@dataclass(frozen=True)
class DurationDistribution:
    """A component's call durations: histogram bins (ms edges, one more than counts), p50, p95."""

    edges: list[float]
    counts: list[int]
    p50: float
    p95: float
    count: int


def component_durations(
    project: int, component_name: str, bins: int
) -> DurationDistribution | None:
    """From the component's duration sketch (one row), never from the calls; None: no durations."""
    raw = (
        ComponentStats.objects.filter(project=project, component_name=component_name)
        .values_list("duration_sketch", flat=True)
        .first()
    )
    sketch = DurationSketch.from_bytes(raw)
    if sketch.count == 0:
        return None
    edges, counts = coarse_histogram(sketch, bins)
    return DurationDistribution(
        edges=edges,
        counts=counts,
        p50=sketch.quantile(0.5),
        p95=sketch.quantile(0.95),
        count=sketch.count,
    )


FEEDBACK_VALUES = (
    "feedback_id",
    "correlation_id",
    "source",
    "annotator_id",
    "polarity",
    "score",
    "dimension",
    "confidence",
    "comment",
    "correction",
    "ts",
)


def component_feedback(
    component_name: str, *, viewer: Principal, limit: int
) -> list[dict[str, Any]]:
    """A component's newest counted feedback that this viewer may see (blind, as the explorer),
    as plain values, each with `turn_id`: its queued turn's id, or None."""
    rows, _ = feedback_page(
        FeedbackFilters(component=component_name), viewer=viewer, after=None, limit=limit
    )
    ids = turn_ids(project_pk(viewer.project), {row.correlation_id for row in rows} - {""})
    return [
        {name: getattr(row, name) for name in FEEDBACK_VALUES}
        | {"turn_id": ids.get(row.correlation_id)}
        for row in rows
    ]


@dataclass(frozen=True)
class ComponentEvidence:
    """How much a component's record rests on: its calls and its feedbacks."""

    calls: int = 0
    feedbacks: int = 0


def component_evidence(project: int, names: set[str]) -> dict[str, ComponentEvidence]:
    """The evidence of each named component of the project that has any, in one query."""
    rows = ComponentStats.objects.filter(project=project, component_name__in=names).values_list(
        "component_name", "calls_total", "feedback_count"
    )
    return {name: ComponentEvidence(calls, feedbacks) for name, calls, feedbacks in rows}


CORRECTION_FIELDS = ("dimension", "comment", "correction", "annotator_id", "source")


def corrections(project: int, component_name: str, limit: int) -> list[dict[str, str]]:
    """A component's newest corrective feedbacks in the project: what to do instead, and who
    said so."""
    return list(
        counted_feedback(project)
        .filter(component_name=component_name, polarity="corrective")
        .order_by("-ts")
        .values(*CORRECTION_FIELDS)[:limit]
    )
