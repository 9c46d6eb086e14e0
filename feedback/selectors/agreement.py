"""How far the annotators agree: Krippendorff's alpha per dimension over the counted human
scores, and the turns whose scores lie furthest apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection

from core.projects.selection import project_pk
from feedback import agreement
from feedback.answers import Agreement, DimensionAgreement
from feedback.models import AgreementTotals, AgreementUnit, Feedback
from feedback.selectors.turns import turn_ids
from feedback.selectors.visibility import counted_feedback
from learnportal_protocol import FeedbackDimension, FeedbackSource

if TYPE_CHECKING:
    from django.db.models import QuerySet


@dataclass(frozen=True)
class HumanScores:
    """Every counted human score on a turn, in no order, as parallel lists of plain values."""

    id: list[int]
    dimension: list[str]
    correlation_id: list[str]
    annotator_id: list[str]
    score: list[float]

    def __len__(self) -> int:
        return len(self.score)


def _human_rows(project: int) -> QuerySet[Feedback]:
    return counted_feedback(project).filter(source="human")


def human_scores(project: str) -> HumanScores:
    """Every counted human score of the project, values only, in one query: what agreement is
    computed over,
    read whole (a recount from scratch; `agreement_read` reads the moments kept at ingest).

    Executed on a plain cursor from the queryset's own SQL (so that whatever `counted_feedback`
    leaves out stays out): building a tuple per row through the ORM would double the cost at a
    few hundred thousand rows (bench/workspace.py). Unordered: the caller sorts by `id` in
    numpy, where PostgreSQL would sort 200k rows on disk past its default `work_mem`.
    """
    rows = (
        _human_rows(project_pk(project))
        .filter(step_id="")  # a step's score rates the step, not its turn
        .exclude(correlation_id="")
        .order_by()
        .values_list("id", "dimension", "correlation_id", "annotator_id", "score")
    )
    sql, params = rows.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    return HumanScores(*([r[i] for r in found] for i in range(5)))


@dataclass(frozen=True)
class Disagreement:
    """One turn on one dimension whose human scores lie far apart."""

    correlation_id: str
    turn_id: int | None  # None: feedback about a turn that was never queued
    dimension: str
    spread: float  # max - min of the scores
    variance: float
    scores: list[tuple[str, float]]  # (annotator, score), in annotator order


@dataclass(frozen=True)
class AgreementReport:
    agreement: Agreement
    disagreements: list[Disagreement]


def agreement_read(project: str, *, disagreements: int = 0) -> AgreementReport:
    """Krippendorff's alpha per dimension over the project's counted human scores
    (feedback.agreement), and the `disagreements` turns whose scores spread widest.

    A unit is one turn on one dimension; a coder, one person: a person's later score of the same
    turn and dimension replaces their earlier one. Read from what the feedback service keeps at
    ingest (feedback.moments): one row of sums per dimension for alpha, and the widest units
    off the front of an index, whatever the number of scores.
    """
    project_id = project_pk(project)
    totals = {row.dimension: row for row in AgreementTotals.objects.filter(project_id=project_id)}
    answers = []
    for dimension in FeedbackDimension:
        row = totals.get(dimension.value)
        alpha = (
            agreement.alpha_interval_from_sums(
                row.units, row.values, row.total, row.squares, row.observed
            )
            if row is not None
            else agreement.Alpha(None, 0, 0)
        )
        answers.append(
            DimensionAgreement(
                dimension=dimension, alpha=alpha.alpha, turns=alpha.units, ratings=alpha.values
            )
        )
    worst = _widest(project_id, disagreements) if disagreements > 0 else []
    return AgreementReport(Agreement(dimensions=answers), worst)


def _widest(project: int, limit: int) -> list[Disagreement]:
    """The project's units whose scores lie furthest apart (range, then variance; people who
    gave the same score do not disagree), each with its people's scores: three queries."""
    units = list(
        AgreementUnit.objects.filter(project_id=project, spread__gt=0)
        .order_by("-spread", "-variance", "id")
        .values_list("correlation_id", "dimension", "spread", "variance")[:limit]
    )
    if not units:
        return []
    wanted = {(key, dimension) for key, dimension, _, _ in units}
    latest: dict[tuple[str, str, str], tuple[int, float]] = {}
    # By turn alone (the source checked here): see feedback.moments on the planner.
    rows = counted_feedback(project).filter(correlation_id__in={key for key, _ in wanted})
    for pk, key, dimension, person, score, source in rows.values_list(
        "id", "correlation_id", "dimension", "annotator_id", "score", "source"
    ):
        if source != FeedbackSource.HUMAN.value or (key, dimension) not in wanted:
            continue
        seen = latest.get((key, dimension, person))
        if seen is None or seen[0] < pk:
            latest[(key, dimension, person)] = (pk, score)
    scores: dict[tuple[str, str], list[tuple[str, float]]] = {unit: [] for unit in wanted}
    for (key, dimension, person), (_, score) in latest.items():
        scores[(key, dimension)].append((person, score))
    ids = turn_ids(project, {key for key, _ in wanted})
    return [
        Disagreement(
            correlation_id=key,
            turn_id=ids.get(key),
            dimension=dimension,
            spread=spread,
            variance=variance,
            scores=sorted(scores[(key, dimension)]),
        )
        for key, dimension, spread, variance in units
    ]
