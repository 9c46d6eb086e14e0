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
from feedback.models import FEEDBACK_ID_SEPARATOR, Feedback, Rating, Retraction, Turn, project_of
from feedback.moments import moments_recount
from feedback.question_sums import question_sums_recount
from feedback.queue_state import turns_tally
from feedback.selectors.visibility import counted_feedback
from feedback.stats import ScoreDelta, stats_add_scores
from learnportal_protocol import FeedbackSource

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


def rating_rows_of(rating: Feedback) -> list[Feedback]:
    """The feedback given with `rating`: itself, or every row of the rubric rating it is one of
    (feedback.services.ratings names them `<rating_id>.<key>`), so that an undo or a
    rejection takes back the rating whole. Locked, in the caller's transaction."""
    rating_id, separator, _ = rating.feedback_id.partition(FEEDBACK_ID_SEPARATOR)
    if (
        not separator
        or not Rating.objects.filter(
            project_id=project_of(rating), rating_id=rating_id, annotator=rating.annotator_id
        ).exists()
    ):
        return [rating]
    siblings = (
        counted_feedback(project_of(rating))
        .select_for_update()
        .filter(
            feedback_id__startswith=rating_id + separator,
            source=FeedbackSource.HUMAN.value,
            annotator_id=rating.annotator_id,
        )
    )
    return list(siblings.order_by("id"))


def rating_take_back(project: int, rows: list[Feedback], *, by: str, now: float) -> list[Feedback]:
    """Take a rating's rows (`rating_rows_of`) back out of what counts, and work out again what
    their turns' queue fields and agreement's moments say: the rows."""
    ratings_take_back([row.pk for row in rows], by=by, now=now)
    turns_tally(project, {row.correlation_id for row in rows if row.correlation_id})
    moments_recount(project, [(row.correlation_id, row.dimension) for row in rows])
    return rows
