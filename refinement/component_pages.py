"""Components: every ComponentPerformanceRecord with its routing weight, and one component's
charts over time (average score, weight), its duration distribution, feedback and refinements.

Every figure comes from an aggregate kept as data arrives (the stats row and its duration
sketch, the hourly buckets, the weight's revisions), a bounded number of rows a page.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.safestring import mark_safe

from core.accounts.roles import Action
from core.instants import utc_text
from core.projects.selection import project_pk
from core.web import page, requires, when
from feedback.selectors import (
    DEFAULT_SOURCE,
    SOURCE_LABELS,
    component_durations,
    component_feedback,
    component_figures,
    component_hours,
    component_records,
    source_asked,
    source_links,
    source_scores,
)
from refinement import charts
from refinement.paths import UNWEIGHTED
from refinement.selectors import component_weight, weight_history
from refinement.store import routing_weights

if TYPE_CHECKING:
    from django.utils.safestring import SafeString

    from core.accounts.principals import Principal
    from feedback.selectors import ComponentHour, DurationDistribution
    from refinement.selectors import WeightChange

HOURS_SHOWN = 168  # a week of hours with data
WEIGHT_POINTS = 200
HISTOGRAM_BINS = 24
FEEDBACK_SHOWN = 15
REFINEMENTS_SHOWN = 10


@dataclass(frozen=True)
class Header:
    label: str
    numeric: bool = False


@dataclass(frozen=True)
class Cell:
    text: str
    css: str = ""


@dataclass(frozen=True)
class NumbersTable:
    """A chart's numbers as text, formatted here: a few hundred cells through `floatformat`
    would cost more than the rest of the page."""

    id: str
    label: str
    headers: list[Header]
    rows: list[list[Cell]]

    @property
    def body(self) -> SafeString:
        """The rows as markup, every text escaped: one template node instead of two a cell."""
        # The stdlib's escape: Django's, lazy-aware, costs five times as much a cell.
        return mark_safe(
            "".join(
                "<tr>"
                + "".join(f'<td class="{c.css}">{escape(c.text, quote=True)}</td>' for c in row)
                + "</tr>"
                for row in self.rows
            )
        )


def _num(value: float | None, places: int) -> Cell:
    return Cell("—" if value is None else f"{value:.{places}f}", "num")


def _utc(ts: float, pattern: str) -> Cell:
    return Cell(utc_text(ts, pattern), "nowrap")


@dataclass(frozen=True)
class Column:
    key: str  # the `sort` value
    label: str
    field: str  # the row's value to sort by
    first: str  # the order a first click sorts in: "asc" or "desc"


COLUMNS = [
    Column("name", "Component", "component_name", "asc"),
    Column("weight", "Routing weight", "weight", "desc"),
    Column("calls", "Calls", "calls_total", "desc"),
    Column("success", "Success", "success_rate", "desc"),
    Column("score", "Avg score", "score_order", "desc"),
    Column("avg_ms", "Avg ms", "avg_duration_ms", "desc"),
    Column("p95_ms", "p95 ms", "p95_duration_ms", "desc"),
    Column("last", "Last call", "last_called", "desc"),
]
BY_KEY = {column.key: column for column in COLUMNS}
ORDERS = ("asc", "desc")


def _shown(record: dict[str, Any]) -> dict[str, Any]:
    """A ComponentPerformanceRecord with what a page shows beside it."""
    figures = component_figures(record)
    return record | {
        "figures": figures,
        "success_rate": figures["success_rate"] or 0.0,  # to sort by
        "last_when": when(record["last_called"]) if record["last_called"] else None,
    }


# Below every score (-1 at the least): a component with none from the source sorts past them.
NO_SCORE = -2.0


def _rows(project: int, source: str) -> list[dict[str, Any]]:
    weights = routing_weights(project)
    scores = source_scores(project, source)
    rows = []
    for record in component_records(project):
        name = record["component_name"]
        score = scores[name]
        rows.append(
            _shown(record)
            | {
                "weight": weights.get(name, UNWEIGHTED),
                "weighted": name in weights,
                "score": score,
                "score_order": NO_SCORE if score.mean is None else score.mean,
            }
        )
    return rows


def _sorting(request: HttpRequest) -> tuple[Column, str, list[str]]:
    """The column and order asked for (`?sort=`, `?order=`), and what was wrong with them."""
    problems = []
    key = request.GET.get("sort", "name")
    if key not in BY_KEY:
        problems.append(f"sort: {key!r} is not one of {', '.join(BY_KEY)}")
        key = "name"
    column = BY_KEY[key]
    order = request.GET.get("order", column.first)
    if order not in ORDERS:
        problems.append(f"order: {order!r} is not asc or desc")
        order = column.first
    return column, order, problems


@requires(Action.STATS)
def component_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    column, order, problems = _sorting(request)
    source, source_problems = source_asked(request.GET)
    problems += source_problems
    rows = sorted(
        _rows(project_pk(principal.project), source), key=lambda row: row["component_name"]
    )
    kept_source = {} if source == DEFAULT_SOURCE else {"source": source}
    rows.sort(key=lambda row: row[column.field], reverse=order == "desc")
    headers = []
    for c in COLUMNS:
        sorted_here = c.key == column.key
        next_order = ("desc" if order == "asc" else "asc") if sorted_here else c.first
        headers.append(
            {
                "column": c,
                "aria_sort": ("ascending" if order == "asc" else "descending")
                if sorted_here
                else "",
                "href": "?" + urlencode({"sort": c.key, "order": next_order, **kept_source}),
                "numeric": c.key != "name",
            }
        )
    context = {
        "rows": rows,
        "headers": headers,
        "problems": problems,
        "sorted_by": column,
        "source_label": SOURCE_LABELS[source],
        "source_links": source_links(source, request.GET),
    }
    return page(request, "refinement/components.html", context, status=400 if problems else 200)


@requires(Action.STATS)
def component_show(request: HttpRequest, principal: Principal, name: str) -> HttpResponse:
    project = project_pk(principal.project)
    records = component_records(project, name)
    if not records:
        raise Http404("No component of that name has any data yet.")
    source, problems = source_asked(request.GET)
    weight = component_weight(project, name)
    hours = component_hours(project, name, HOURS_SHOWN)
    changes = weight_history(project, name, limit=WEIGHT_POINTS)
    durations = component_durations(project, name, HISTOGRAM_BINS)
    context = {
        "record": _shown(records[0]),
        "score": source_scores(project, source, name)[name],
        "source_label": SOURCE_LABELS[source],
        "source_links": source_links(source, request.GET),
        "problems": problems,
        "weight": weight,
        "weight_label": f"{weight:.3f}",
        "weighted": bool(changes) or weight != UNWEIGHTED,
        "score_chart": _score_chart(hours),
        "score_numbers": _score_numbers(hours),
        "weights": _weight_chart(changes, weight),
        "weight_numbers": _weight_numbers(changes),
        "durations": _duration_chart(durations),
        "feedback": [
            row | {"when": when(row["ts"])}
            for row in component_feedback(name, viewer=principal, limit=FEEDBACK_SHOWN)
        ],
        "refinements": _refinements(changes, principal),
        "explorer": reverse("portal:explorer") + "?" + urlencode({"component": name}),
    }
    return page(request, "refinement/component.html", context, status=400 if problems else 200)


def _score_chart(hours: list[ComponentHour]) -> charts.LineChart | None:
    scored = [(h.start, h.avg_score) for h in hours if h.avg_score is not None]
    if not scored:
        return None
    return charts.line_chart(
        [(ts, value) for ts, value in scored], low=-1.0, high=1.0, value_format="{:+.1f}"
    )


def _score_numbers(hours: list[ComponentHour]) -> NumbersTable:
    return NumbersTable(
        id="score-numbers",
        label="Average score by hour",
        headers=[
            Header("Hour (UTC)"),
            Header("Avg score", numeric=True),
            Header("Scores", numeric=True),
            Header("Calls", numeric=True),
            Header("Avg ms", numeric=True),
        ],
        rows=[
            [
                _utc(h.start, "%Y-%m-%d %H:00"),
                _num(h.avg_score, 3),
                Cell(str(h.scores), "num"),
                Cell(str(h.calls), "num"),
                _num(h.avg_duration_ms, 0),
            ]
            for h in reversed(hours)
        ],
    )


def _weight_numbers(changes: list[WeightChange]) -> NumbersTable:
    return NumbersTable(
        id="weight-numbers",
        label="Routing weight changes",
        headers=[
            Header("When (UTC)"),
            Header("Before", numeric=True),
            Header("After", numeric=True),
            Header("By"),
        ],
        rows=[
            [
                _utc(c.ts, "%Y-%m-%d %H:%M:%S"),
                _num(c.before, 3),
                Cell(f"{c.after:.3f}", "num weight-after"),
                Cell(c.actor + (" (rollback)" if c.is_rollback else "")),
            ]
            for c in reversed(changes)
        ],
    )


def _weight_chart(changes: list[WeightChange], current: float) -> charts.LineChart | None:
    if not changes:
        return None
    series = [(changes[0].ts, changes[0].before)] + [(c.ts, c.after) for c in changes]
    series.append((max(time.time(), changes[-1].ts), current))
    return charts.line_chart(series, low=0.0, high=1.0, step=True, value_format="{:.2f}")


def _duration_chart(durations: DurationDistribution | None) -> dict[str, Any] | None:
    if durations is None:
        return None
    chart = charts.histogram(
        durations.edges, durations.counts, {"p50": durations.p50, "p95": durations.p95}
    )
    numbers = NumbersTable(
        id="duration-numbers",
        label="Call durations by bin",
        headers=[Header("From ms", True), Header("To ms", True), Header("Calls", True)],
        rows=[
            [_num(low, 1), _num(high, 1), Cell(str(count), "num")]
            for low, high, count in zip(
                durations.edges, durations.edges[1:], durations.counts, strict=False
            )
        ],
    )
    return {"chart": chart, "numbers": numbers, "figures": durations}


def _refinements(changes: list[WeightChange], principal: Principal) -> list[dict[str, Any]] | None:
    """The newest refinements of the weight, for the roles that read the history (None: not
    theirs to read); each links to its plan's page for those who may open it."""
    if not principal.may(Action.HISTORY):
        return None
    may_open_plans = principal.may(Action.DECIDE)
    return [
        {
            "change": c,
            "when": when(c.ts),
            "plan_href": reverse("portal:plan", args=[c.plan_id])
            if c.plan_id and may_open_plans
            else "",
        }
        for c in list(reversed(changes))[:REFINEMENTS_SHOWN]
    ]
