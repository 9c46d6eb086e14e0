"""A component's average score from one source of feedback, as the pages for people show it.

The wire's `avg_score` (learn/stats) is the confidence-weighted mean of every feedback score
of the component, whatever its source. A person reading a page wants to know what people
thought, not an agent's opinion of itself blended in: the pages show one source's mean (human
unless asked otherwise, `?source=`), from tallies kept at ingest (feedback.stats), one row a
component.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection

from feedback.models import ComponentStats
from feedback.stats import ALL_COLUMNS, SCORE_SOURCES, STATS, source_columns

if TYPE_CHECKING:
    from django.http import QueryDict

ALL = "all"
SHOWN_SOURCES = (*SCORE_SOURCES, ALL)
DEFAULT_SOURCE = "human"
SOURCE_LABELS = {"human": "People", "env": "Environments", "self": "Agents' own", ALL: "All"}


@dataclass(frozen=True)
class SourceScore:
    """How many scores one source gave a component, and their confidence-weighted mean
    (None where there is none to average)."""

    count: int
    mean: float | None


def _columns(source: str) -> tuple[str, str, str]:
    if source == ALL:
        count, weight, weighted_sum = ALL_COLUMNS
        return count, weight, weighted_sum
    return source_columns(source)


def source_scores(project: int, source: str, component_name: str = "") -> dict[str, SourceScore]:
    """Each of the project's components' scores from `source` (one of SHOWN_SOURCES), or one
    component's."""
    count, weight, weighted_sum = _columns(source)
    table = connection.ops.quote_name(ComponentStats._meta.db_table)
    key = STATS.component_name
    params: list[int | str] = [project]
    where = f"WHERE {STATS.project} = %s"
    if component_name:
        where, params = f"{where} AND {key} = %s", [project, component_name]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {key}, {count}, {weight}, {weighted_sum} FROM {table} {where}",
            params,
        )
        rows = cursor.fetchall()
    return {
        name: SourceScore(int(n), float(s) / w if n > 0 and w > 0 else None)
        for name, n, w, s in rows
    }


def source_asked(query: QueryDict) -> tuple[str, list[str]]:
    """The source a page's `?source=` asks for (human when it names none), and what was wrong
    with it."""
    source = query.get("source", DEFAULT_SOURCE)
    if source in SHOWN_SOURCES:
        return source, []
    return DEFAULT_SOURCE, [f"source: {source!r} is not one of {', '.join(SHOWN_SOURCES)}"]


def source_links(source: str, query: QueryDict) -> list[dict[str, str | bool]]:
    """The filter's links: one a source, each keeping the rest of the page's query."""
    links: list[dict[str, str | bool]] = []
    for choice in SHOWN_SOURCES:
        kept = query.copy()
        kept["source"] = choice
        links.append(
            {
                "label": SOURCE_LABELS[choice],
                "href": "?" + kept.urlencode(),
                "current": choice == source,
            }
        )
    return links
