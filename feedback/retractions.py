"""Taking stored ratings back out of what counts: a person's undo (feedback.queue.queue_undo)
and a rating that supersedes their earlier one (feedback.raters).

The rating stays stored as it was; a Retraction record beside it makes it stop counting in
every read through feedback.selectors.visibility.counted_feedback, and its score comes out of
what ingest keeps counted: the component's stats, its hourly buckets, the feedback count (each
its project's), and the rated turns' sums of agreement per question (feedback.question_sums). The turns' queue
fields and agreement's moments per dimension are the caller's to work out (each does it its own way).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.columns import Columns
from feedback.buckets import buckets_retract
from feedback.bulk import insert_rows
from feedback.counters import FEEDBACK_COUNTED, counter_add
from feedback.models import FEEDBACK_ID_SEPARATOR, Feedback, Retraction, Turn
from feedback.question_sums import question_sums_recount
from feedback.stats import ScoreDelta, stats_add_scores

if TYPE_CHECKING:
    from collections.abc import Collection

RETRACTION_COLUMNS = Columns(Retraction)("feedback", "by", "created")


def ratings_take_back(pks: Collection[int], *, by: str, now: float) -> None:
    """Retract these stored, counted feedbacks (by primary key), in the caller's transaction."""
    if not pks:
        return
    rows = list(
        Feedback.objects.filter(pk__in=pks)
        .order_by("pk")
        .values_list(
            "pk",
            "project",
            "component_name",
            "ts",
            "score",
            "confidence",
            "source",
            "feedback_id",
            "correlation_id",
        )
    )
    insert_rows(Retraction, RETRACTION_COLUMNS, [(pk, by, now) for pk, *_ in rows])
    taken: dict[int, dict[str, ScoreDelta]] = {}
    counted: dict[int, int] = {}
    rated: dict[int, set[str]] = {}  # by project, the turns whose ratings these rows are of
    for _, project, component, ts, score, confidence, source, feedback_id, key in rows:
        if FEEDBACK_ID_SEPARATOR in feedback_id:
            rated.setdefault(project, set()).add(key)
        counted[project] = counted.get(project, 0) + 1
        if component:
            of_project = taken.setdefault(project, {})
            of_project.setdefault(component, ScoreDelta()).add(score, confidence, source, sign=-1)
            buckets_retract(project, component, ts, score, confidence)
    for project, deltas in sorted(taken.items()):
        stats_add_scores(project, deltas)
    for project, count in sorted(counted.items()):
        counter_add(FEEDBACK_COUNTED, -count, project=project)
    for project, keys in sorted(rated.items()):
        turns = Turn.objects.filter(project_id=project, correlation_id__in=keys)
        question_sums_recount(project, turns.values_list("pk", flat=True))
