"""The ratings given on a project's rubric (feedback.services.ratings), as agreement reads them.

A rating counts unless it was undone (a Retraction of one of its feedback rows); a person's
later rating of a turn replaces their earlier one, question by question, as a later score
replaces an earlier one on a dimension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Exists, OuterRef, Value
from django.db.models.functions import Concat, Length

from core.projects.selection import project_pk
from feedback.answers import QuestionAgreement
from feedback.models import FEEDBACK_ID_SEPARATOR, Rating, Retraction
from feedback.rubrics.agreement import rubric_agreement
from feedback.services.rubrics import rubric_current

if TYPE_CHECKING:
    from collections.abc import Hashable

    from django.db.models import QuerySet


def counted_ratings(project_id: int) -> QuerySet[Rating]:
    undone = Retraction.objects.filter(
        feedback__feedback_id__startswith=Concat(
            OuterRef("rating_id"), Value(FEEDBACK_ID_SEPARATOR)
        )
    )
    return Rating.objects.filter(project_id=project_id).exclude(Exists(undone))


def question_agreements(project: str) -> list[QuestionAgreement]:
    """Alpha per question of the project's rubric (feedback.rubrics.agreement), over the latest
    counted answer of each person on each turn."""
    project_id = project_pk(project)
    rubric = rubric_current(project_id).rubric
    latest: dict[tuple[str, int, str], Any] = {}
    lengths: dict[Hashable, int] = {}
    rows = (
        counted_ratings(project_id)
        .order_by("id")
        .annotate(response_length=Length("turn__response"))
        .values_list("turn_id", "annotator", "answers", "response_length")
    )
    for turn_id, annotator, answers, length in rows.iterator(chunk_size=2000):
        lengths[turn_id] = length
        for key, answer in answers.items():
            latest[(key, turn_id, annotator)] = answer
    by_key: dict[str, list[tuple[Hashable, Any]]] = {}
    for (key, turn_id, _), answer in latest.items():
        by_key.setdefault(key, []).append((turn_id, answer))
    return [
        QuestionAgreement(
            key=found.key,
            kind=found.kind,
            level=found.level,
            alpha=found.alpha,
            units=found.units,
            ratings=found.ratings,
        )
        for found in rubric_agreement(rubric, by_key, response_lengths=lengths)
    ]
