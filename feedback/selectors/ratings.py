"""The ratings given on a project's rubric (feedback.services.ratings), as agreement reads them.

A rating counts unless it was undone (a Retraction of one of its feedback rows); a person's
later rating of a turn replaces their earlier one, question by question, as a later score
replaces an earlier one on a dimension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import CharField, Value
from django.db.models.functions import Cast, Concat, Length, StrIndex, Substr

from core.projects.selection import project_pk
from feedback.answers import QuestionAgreement
from feedback.models import FEEDBACK_ID_SEPARATOR, Feedback, Rating, Retraction
from feedback.rubrics.agreement import rubric_agreement
from feedback.services.rubrics import rubric_current

if TYPE_CHECKING:
    from collections.abc import Hashable

    from django.db.models import QuerySet

# Between a project's id, a rating's id (hex) and its annotator's username (which holds no space)
# in the key by which undone ratings are found.
KEY_SEPARATOR = " "


def counted_ratings(project_id: int) -> QuerySet[Rating]:
    """The project's ratings but those undone: a rating is undone when one of its feedback rows
    (`<rating_id>.<key>`, its annotator's, in its project) has a Retraction.

    The undone ones are read from the project's retractions once, as keys of (project, rating_id,
    annotator) among which each rating's own key is looked up; the retracted rows are found by
    id from the retractions (`IN`), so that those lead on SQLite too. A NOT EXISTS with a LIKE on
    the rating's id, correlated, made SQLite scan every feedback id for each rating (27 s at 4k
    ratings); a join with the feedback table, every feedback row once.
    """
    retracted = Feedback.objects.filter(
        project_id=project_id,
        pk__in=Retraction.objects.values("feedback"),
        feedback_id__contains=FEEDBACK_ID_SEPARATOR,
    )
    undone = retracted.annotate(
        key=_key("project_id", _rating_of("feedback_id"), "annotator_id")
    ).values("key")
    return (
        Rating.objects.filter(project_id=project_id)
        .alias(key=_key("project_id", "rating_id", "annotator"))
        .exclude(key__in=undone)
    )


def _rating_of(feedback_id: str) -> Substr:
    """The rating id a feedback id `<rating_id>.<key>` names (it has a separator)."""
    return Substr(feedback_id, 1, StrIndex(feedback_id, Value(FEEDBACK_ID_SEPARATOR)) - 1)


def _key(project: str, rating: Any, annotator: str) -> Concat:
    separator = Value(KEY_SEPARATOR)
    return Concat(Cast(project, CharField()), separator, rating, separator, annotator)


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
