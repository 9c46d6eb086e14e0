"""Components: every ComponentPerformanceRecord with its routing weight, and one component's
charts over time (average score, weight), its duration distribution, feedback and refinements.

Every figure comes from an aggregate kept as data arrives (the stats row and its duration
sketch, the hourly buckets, the weight's revisions), a bounded number of rows a page.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse

from feedback.selectors import (
    component_durations,
    component_feedback,
    component_hours,
    component_records,
)
from learnportal.accounts.roles import Action
from learnportal.web import page, requires, when
from refinement import charts
from refinement.paths import UNWEIGHTED
from refinement.selectors import component_weight, weight_history
from refinement.store import routing_weights

if TYPE_CHECKING:
    from feedback.selectors import ComponentHour, DurationDistribution
    from learnportal.accounts.principals import Principal
    from refinement.selectors import WeightChange

HOURS_SHOWN = 168  # a week of hours with data
WEIGHT_POINTS = 200
HISTOGRAM_BINS = 24
FEEDBACK_SHOWN = 15
REFINEMENTS_SHOWN = 10


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
    Column("score", "Avg score", "avg_score", "desc"),
    Column("avg_ms", "Avg ms", "avg_duration_ms", "desc"),
    Column("p95_ms", "p95 ms", "p95_duration_ms", "desc"),
    Column("last", "Last call", "last_called", "desc"),
]
BY_KEY = {column.key: column for column in COLUMNS}
ORDERS = ("asc", "desc")


def _rows() -> list[dict[str, Any]]:
    weights = routing_weights()
    return [
        record
        | {
            "weight": weights.get(record["component_name"], UNWEIGHTED),
            "weighted": record["component_name"] in weights,
            "success_rate": 100 * record["calls_success"] / record["calls_total"]
            if record["calls_total"]
            else 0.0,
            "last_when": when(record["last_called"]) if record["last_called"] else None,
        }
        for record in component_records()
    ]


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
    rows = sorted(_rows(), key=lambda row: row["component_name"])
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
                "href": f"?sort={c.key}&order={next_order}",
                "numeric": c.key != "name",
            }
        )
    context = {"rows": rows, "headers": headers, "problems": problems, "sorted_by": column}
    return page(request, "refinement/components.html", context, status=400 if problems else 200)


@requires(Action.STATS)
def component_show(request: HttpRequest, principal: Principal, name: str) -> HttpResponse:
    records = component_records(name)
    if not records:
        raise Http404("No component of that name has any data yet.")
    record = records[0]
    weight = component_weight(name)
    hours = component_hours(name, HOURS_SHOWN)
    changes = weight_history(name, limit=WEIGHT_POINTS)
    durations = component_durations(name, HISTOGRAM_BINS)
    context = {
        "record": record
        | {
            "success_rate": 100 * record["calls_success"] / record["calls_total"]
            if record["calls_total"]
            else 0.0,
            "last_when": when(record["last_called"]) if record["last_called"] else None,
        },
        "weight": weight,
        "weight_label": f"{weight:.3f}",
        "weighted": bool(changes) or weight != UNWEIGHTED,
        "score": _score_chart(hours),
        "hours": [{"when": when(h.start), "hour": h} for h in hours],
        "weights": _weight_chart(changes, weight),
        "changes": [{"when": when(c.ts), "change": c} for c in reversed(changes)],
        "durations": _duration_chart(durations),
        "feedback": [
            row | {"when": when(row["ts"])}
            for row in component_feedback(name, viewer=principal, limit=FEEDBACK_SHOWN)
        ],
        "refinements": _refinements(changes, principal),
        "explorer": reverse("portal:explorer") + "?" + urlencode({"component": name}),
    }
    return page(request, "refinement/component.html", context)


def _score_chart(hours: list[ComponentHour]) -> charts.LineChart | None:
    scored = [(h.start, h.avg_score) for h in hours if h.avg_score is not None]
    if not scored:
        return None
    return charts.line_chart(
        [(ts, value) for ts, value in scored], low=-1.0, high=1.0, value_format="{:+.1f}"
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
    bins = [
        {"low": low, "high": high, "count": count}
        for low, high, count in zip(
            durations.edges, durations.edges[1:], durations.counts, strict=False
        )
    ]
    return {"chart": chart, "bins": bins, "figures": durations}


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
