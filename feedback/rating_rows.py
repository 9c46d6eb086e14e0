"""Which rating a stored feedback row was made for, and what that rating answered.

A rating on a rubric (feedback.services.ratings) is stored whole, and its scored answers as
feedback rows too, with ids `<rating_id>.<question key>` (feedback.rubrics.scores.feedback_keys
says which answers get a row). The exports read a row with its rating: every answer in
`rewards`, and the project's preference question in the formats that take one line a rating.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from feedback.models import FEEDBACK_ID_SEPARATOR, Rating, project_of
from feedback.rubrics.scores import feedback_keys, scores_of
from feedback.services.rubrics import rubrics_at
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterable

    from feedback.models import Feedback


HUMAN = FeedbackSource.HUMAN.value


@dataclass(frozen=True)
class RatedRow:
    """A feedback row of a rating: the question it is of, and the rating's answers."""

    rating_id: str
    key: str
    rubric_version: int
    answers: dict[str, Any]
    scores: dict[str, float]  # every answer with a score, in the rubric's order
    lead: bool  # the row that carries the rating's remarks and speaks for it

    @property
    def unstored_scores(self) -> dict[str, float]:
        """The scored answers that have no feedback row of their own."""
        stored = set(feedback_keys(self.scores))
        return {key: score for key, score in self.scores.items() if key not in stored}


def rated_rows(rows: Iterable[Feedback]) -> dict[int, RatedRow]:
    """The rows (by primary key) that a rating made, each with its rating: two queries a
    project in the rows, whatever their number."""
    wanted: dict[int, dict[str, list[tuple[int, str, str]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for row in rows:
        rating_id, separator, key = row.feedback_id.rpartition(FEEDBACK_ID_SEPARATOR)
        if separator and rating_id and row.source == HUMAN:
            wanted[project_of(row)][rating_id].append((row.pk, key, row.annotator_id))
    found: dict[int, RatedRow] = {}
    for project, by_rating in wanted.items():
        ratings = list(
            Rating.objects.filter(project_id=project, rating_id__in=by_rating).values_list(
                "rating_id", "annotator", "rubric_version", "answers"
            )
        )
        rubrics = rubrics_at(project, {version for _, _, version, _ in ratings})
        for rating_id, annotator, version, answers in ratings:
            rubric = rubrics.get(version)
            if rubric is None:
                continue
            scores = scores_of(rubric, answers)
            keys = feedback_keys(scores)
            for pk, key, sender in by_rating[rating_id]:
                # Only the rows the rating itself stored: its person's, of its stored answers.
                if sender == annotator and key in keys:
                    found[pk] = RatedRow(rating_id, key, version, answers, scores, key == keys[0])
    return found
