"""A project's rubric as stored: the version it rates on now, and a new version from its managers.

A project that has written none rates on the default rubric (feedback.rubrics.defaults), which
is its version 1. A new version may change a question that has answers only as
feedback.rubrics.versions allows; a question has answers when a rating names it, or, for the
five dimensions, when a person's feedback on one of the project's turns rates that dimension
(a rating from the page, or one given before the project had a rubric).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from django.db import transaction

from core.accounts.roles import Action
from core.projects.models import Project
from feedback.comparisons.models import Judgment
from feedback.models import Feedback, Rating, RubricVersion, Turn
from feedback.rubrics.defaults import default_rubric
from feedback.rubrics.questions import PAGE_KEYS, Rubric, rubric_from
from feedback.rubrics.scores import DIMENSIONS
from feedback.rubrics.versions import rubric_change_refusal
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import detail, invalid

if TYPE_CHECKING:
    from core.accounts.principals import Principal

DEFAULT_VERSION = 1
NOTHING_SCORED = (
    "a rubric asks at least one question of turns with a score, not retired: numeric, boolean, or "
    "categorical with ordered options and one choice, since its ratings become training data"
)


@dataclass(frozen=True)
class StoredRubric:
    version: int
    rubric: Rubric


def rubric_current(project_id: int) -> StoredRubric:
    """The rubric the project rates on now: its newest version, or the default rubric."""
    row = (
        RubricVersion.objects.filter(project_id=project_id)
        .order_by("-version")
        .values_list("version", "questions", "preference")
        .first()
    )
    if row is None:
        return StoredRubric(DEFAULT_VERSION, default_rubric())
    version, questions, preference = row
    return StoredRubric(version, _stored(questions, preference))


def rubrics_at(project_id: int, versions: set[int]) -> dict[int, Rubric]:
    """The project's rubric of each of these versions (those it has), in one query: what a
    rating given under it was judged by."""
    rows = RubricVersion.objects.filter(project_id=project_id, version__in=versions)
    found = {
        version: _stored(questions, preference)
        for version, questions, preference in rows.values_list("version", "questions", "preference")
    }
    if DEFAULT_VERSION in versions and DEFAULT_VERSION not in found:
        found[DEFAULT_VERSION] = default_rubric()
    return found


def _stored(questions: str, preference: str) -> Rubric:
    """A stored version as the rubric it is. A hotkey the rating page came to take for itself
    after the version was written (feedback.rubrics.questions.PAGE_KEYS) is left out: the page
    keeps its key, the question its other keys and its place."""
    items = orjson.loads(questions)
    for item in items:
        item["hotkeys"] = [k for k in item.get("hotkeys", []) if k.lower() not in PAGE_KEYS]
    return Rubric.model_validate({"questions": items, "preference": preference})


def rubric_replace(*, member: Principal, project: Project, data: Any) -> StoredRubric:
    """Make the rubric `data` (`{"questions": [...]}`) the project's next version: `invalid`
    naming each bad field, `conflict` naming each answered question it would change."""
    member.require(Action.MANAGE_PROJECT)
    new = rubric_from(data)
    with transaction.atomic():
        # One writer of a project's versions at a time: the project's row, locked.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        current = rubric_current(project.pk)
        answered = answered_keys(project.pk, {q.key for q in current.rubric.questions})
        refusal = rubric_change_refusal(current.rubric, new, answered)
        if refusal is not None:
            raise refusal
        if not any(
            question.scored and not question.retired and not question.candidates
            for question in new.questions
        ):
            raise invalid(f"questions: {NOTHING_SCORED}", [detail(["questions"], NOTHING_SCORED)])
        version = current.version + 1
        RubricVersion.objects.create(
            project_id=project.pk,
            version=version,
            questions=orjson.dumps(new.model_dump(mode="json")["questions"]).decode(),
            preference=new.preference,
            by=member.name,
            created=time.time(),
        )
    return StoredRubric(version, new)


def answered_keys(project_id: int, keys: set[str]) -> set[str]:
    """Which of `keys` some answer in the project names.

    A query a key: a rubric has few questions, and a new version is rare beside the ratings
    it would otherwise slow down by keeping a list of answered keys.
    """
    ratings = Rating.objects.filter(project_id=project_id)
    judgments = Judgment.objects.filter(project_id=project_id)
    answered = {
        key
        for key in keys
        if ratings.filter(answers__has_key=key).exists()
        or judgments.filter(answers__has_key=key).exists()
    }
    dimensions = keys & DIMENSIONS - answered
    if dimensions:
        turns = Turn.objects.filter(project_id=project_id).values("correlation_id")
        rated = Feedback.objects.filter(
            project_id=project_id, source=FeedbackSource.HUMAN.value, correlation_id__in=turns
        )
        answered |= {key for key in dimensions if rated.filter(dimension=key).exists()}
    return answered
