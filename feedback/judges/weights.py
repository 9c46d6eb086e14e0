"""How far a machine judge's feedback counts, where its project weighs judges
(`judges_weighed`): on each dimension, its Krippendorff's alpha with people on the whole turns
both rated (feedback.judges.calibration), clipped to [0, 1], once it shares
`LEARNPORTAL_JUDGE_MIN_ITEMS` of them; a judge not measured yet counts in full.

A weight is measured when the judge's feedback arrives and kept (JudgeWeight) for
`LEARNPORTAL_JUDGE_WEIGHT_SECONDS`, so that a busy judge is measured once a while rather than
once a request. The weight in force when a feedback arrives is the one it counts with: a later
measure weighs later feedback.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import Count

from core.projects.rules import judges_weighed
from feedback.judges.calibration import MACHINE, calibrate
from feedback.judges.models import JudgeWeight
from feedback.selectors.visibility import counted_feedback

if TYPE_CHECKING:
    from collections.abc import Iterable

IN_FULL = 1.0


def is_machine(source: str) -> bool:
    return source in MACHINE


def judge_weights(project: int, judge: str, dimensions: Iterable[str]) -> dict[str, float]:
    """The weight each of these dimensions of the judge's feedback counts with now (IN_FULL
    where it is not measured)."""
    return {
        dimension: _in_force(weight)
        for dimension, weight in judge_measures(project, judge, dimensions).items()
    }


def judge_measures(project: int, judge: str, dimensions: Iterable[str]) -> dict[str, float | None]:
    """The judge's measured weight on each of these dimensions (None: not measured), measured
    again where the kept one is missing or old."""
    wanted = set(dimensions)
    kept = {
        row.dimension: row
        for row in JudgeWeight.objects.filter(project=project, judge=judge, dimension__in=wanted)
    }
    now = time.time()
    fresh_after = now - settings.LEARNPORTAL_JUDGE_WEIGHT_SECONDS
    if wanted - kept.keys() or any(row.measured <= fresh_after for row in kept.values()):
        kept = {row.dimension: row for row in _measure(project, judge, wanted, now)}
    return {dimension: kept[dimension].weight for dimension in wanted}


def _in_force(weight: float | None) -> float:
    return IN_FULL if weight is None else weight


def _measure(project: int, judge: str, dimensions: set[str], now: float) -> list[JudgeWeight]:
    """Measure the judge again on every dimension it shares with people, and on these: kept."""
    figures = {f.question: f for f in calibrate(project, judge)}
    rows = [
        JudgeWeight(
            project_id=project,
            judge=judge,
            dimension=dimension,
            items=figures[dimension].items if dimension in figures else 0,
            alpha=figures[dimension].alpha if dimension in figures else None,
            weight=figures[dimension].weight if dimension in figures else None,
            measured=now,
        )
        for dimension in sorted(dimensions | figures.keys())
    ]
    JudgeWeight.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["project", "judge", "dimension"],
        update_fields=["items", "alpha", "weight", "measured"],
    )
    return [row for row in rows if row.dimension in dimensions]


def unmeasured_reliance(project: int, counted: dict[str, int]) -> dict[str, list[str]]:
    """Of these components (with their counted feedback), where the project weighs judges,
    those whose feedback comes more than half from judges not measured on its dimension (too
    few items they share with people): each with those judges, by name."""
    if not counted or not judges_weighed(project):
        return {}
    measured = set(
        JudgeWeight.objects.filter(project=project, weight__isnull=False).values_list(
            "judge", "dimension"
        )
    )
    unmeasured: dict[str, int] = {}
    judges: dict[str, set[str]] = {}
    groups = (
        counted_feedback(project)
        .filter(component_name__in=counted.keys(), source__in=MACHINE)
        .values_list("component_name", "submitted_by", "dimension")
        .annotate(n=Count("id"))
        .order_by()
    )
    for component, judge, dimension, n in groups:
        if (judge, dimension) not in measured:
            unmeasured[component] = unmeasured.get(component, 0) + n
            judges.setdefault(component, set()).add(judge)
    return {
        component: sorted(judges[component])
        for component, n in unmeasured.items()
        if 2 * n > counted.get(component, 0)
    }
