"""The sums each question's agreement is read from (feedback.rubrics.agreement), kept as
ratings arrive and are undone (feedback.models.QuestionUnit and QuestionTotals), so that alpha
per question reads one row a question instead of every rating.

A unit is a turn, or one step of a turn (a rating names at most one); its values are its people's latest counted answers to the question (a
person's later rating replaces their earlier one, question by question; an undone rating does
not count: feedback.selectors.ratings). Only a unit that two people or more answered pairs with
anything, so only those are kept. Whatever moves a turn's ratings (a rating, an undo, a rating
that supersedes an earlier one) calls `question_sums_recount` on the turn, in its transaction:
its units are worked out again from what is stored, and each question's totals move by the
difference between the old sums and the new, so the result is right whatever order things
arrive in, and working it out again changes nothing.

Locking (PostgreSQL; SQLite has one writer): the project's own row of QuestionTotals, before
the turn's ratings are read, so that two people rating one turn at once are counted one after
the other. That row also says whether the project's stored ratings have been counted at all
(`built`): until they have, nothing moves, and the first read counts them
(`question_sums_rebuild`, also run by manage.py feedback_recount).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce, Length

from core.projects.selection import project_pk
from feedback.answers import QuestionAgreement
from feedback.bulk import IN_CHUNK
from feedback.models import QuestionTotals, QuestionUnit, TurnStep
from feedback.rubrics.agreement import (
    Sums,
    agreement_of,
    level_of,
    shape_of,
    sums_added,
    unit_sums,
)
from feedback.rubrics.questions import SpansQuestion
from feedback.selectors.ratings import counted_ratings
from feedback.services.rubrics import rubric_current

if TYPE_CHECKING:
    from collections.abc import Iterable

    from feedback.rubrics.questions import Rubric

Unit = tuple[int, str, str]  # (turn id, step id or "" for the whole turn, question key)
Latest = dict[tuple[int, str], tuple[int, dict[str, dict[str, Any]]]]
PROJECT_ROW = ""  # the question of the project's own row of QuestionTotals


def question_agreements(project: str) -> list[QuestionAgreement]:
    """Alpha per question of the project's rubric but text's, in its order, from the totals
    kept: one query (and, the first time, the count of every stored rating)."""
    project_id = project_pk(project)
    rubric = rubric_current(project_id).rubric
    totals = _totals(project_id)
    if PROJECT_ROW not in totals or not totals[PROJECT_ROW].built:
        question_sums_rebuild(project_id, unless_built=True)
        totals = _totals(project_id)
    found = []
    for question in rubric.questions:
        if level_of(question) is None or question.candidates:  # judged with comparisons
            continue
        row = totals.get(question.key)
        kept = row.sums if row is not None and row.shape == shape_of(question) else {}
        found.append(QuestionAgreement(**vars(agreement_of(question, kept))))
    return found


def question_sums_recount(project: int, turns: Iterable[int]) -> None:
    """Work out again the units of these turns of the project from their counted ratings, and
    move the totals; in the caller's transaction. Nothing before the project is `built`."""
    wanted = sorted(set(turns))
    if not wanted or not _project_locked(project):
        return
    rubric = rubric_current(project).rubric
    now = _units_of(rubric, _latest_answers(project, wanted))
    old: dict[Unit, Sums] = {}
    for start in range(0, len(wanted), IN_CHUNK):
        rows = QuestionUnit.objects.filter(turn_id__in=wanted[start : start + IN_CHUNK])
        units = rows.values_list("turn_id", "step_id", "question", "sums")
        old.update({(t, step, k): s for t, step, k, s in units})
    moved: dict[str, Sums] = {}
    for unit in sorted(old.keys() | now.keys()):
        before, after = old.get(unit), now.get(unit)
        if before == after:
            continue
        delta = sums_added(after or {}, before or {}, sign=-1)
        turn_id, step_id, key = unit
        moved[key] = sums_added(moved.get(key, {}), delta)
        if after is None:
            QuestionUnit.objects.filter(turn_id=turn_id, step_id=step_id, question=key).delete()
        else:
            QuestionUnit.objects.update_or_create(
                turn_id=turn_id,
                step_id=step_id,
                question=key,
                defaults={"project_id": project, "sums": after},
            )
    _totals_move(project, rubric, moved)


def question_sums_rebuild(project: int | None = None, *, unless_built: bool = False) -> int:
    """Count every unit of the project (or of every project) again from its stored ratings,
    and mark it built; returns the number of units. Each project in a transaction of its own;
    `unless_built`: not one that is built already (the first read's, which may have waited
    for another's)."""
    from core.projects.models import Project

    projects = (
        [project] if project is not None else list(Project.objects.values_list("pk", flat=True))
    )
    count = 0
    for project_id in projects:
        with transaction.atomic():
            if _project_locked(project_id) and unless_built:
                continue
            rubric = rubric_current(project_id).rubric
            units = _units_of(rubric, _latest_answers(project_id, None))
            QuestionUnit.objects.filter(project_id=project_id).delete()
            QuestionTotals.objects.filter(project_id=project_id).exclude(
                question=PROJECT_ROW
            ).delete()
            QuestionUnit.objects.bulk_create(
                (
                    QuestionUnit(project_id=project_id, turn_id=t, step_id=step, question=k, sums=s)
                    for (t, step, k), s in units.items()
                ),
                batch_size=2000,
            )
            totals: dict[str, Sums] = {}
            for (_, _, key), sums in units.items():
                totals[key] = sums_added(totals.get(key, {}), sums)
            _totals_move(project_id, rubric, totals)
            QuestionTotals.objects.filter(project_id=project_id, question=PROJECT_ROW).update(
                built=True
            )
            count += len(units)
    return count


def _project_locked(project: int) -> bool:
    """Lock the project's own row (made if missing); whether its ratings are counted."""
    QuestionTotals.objects.get_or_create(project_id=project, question=PROJECT_ROW)
    built = (
        QuestionTotals.objects.select_for_update()
        .filter(project_id=project, question=PROJECT_ROW)
        .values_list("built", flat=True)
        .get()
    )
    return bool(built)


def _latest_answers(project: int, turns: list[int] | None) -> Latest:
    """By turn and step rated (of these turns, or every turn of the project): the length of
    what its spans are within (the response, or the step's output), and by question key each
    person's latest counted answer."""
    rows = counted_ratings(project, turns=turns).order_by("id")
    found: Latest = {}
    output = TurnStep.objects.filter(turn=OuterRef("turn_id"), step_id=OuterRef("step_id"))
    rated_length = Coalesce(
        Subquery(output.values(length=Length("output"))[:1]), Length("turn__response")
    )
    values = rows.annotate(rated_length=rated_length).values_list(
        "turn_id", "step_id", "annotator", "answers", "rated_length"
    )
    for turn_id, step_id, annotator, answers, length in values.iterator(chunk_size=2000):
        by_key = found.setdefault((turn_id, step_id), (length, {}))[1]
        for key, answer in answers.items():
            by_key.setdefault(key, {})[annotator] = answer
    return found


def _units_of(rubric: Rubric, latest: Latest) -> dict[Unit, Sums]:
    """Each unit's sums, for the rubric's questions that have a level. An answer its question
    does not take (stored before a rule it breaks) leaves its unit out rather than break a page."""
    questions = {q.key: q for q in rubric.questions if level_of(q) is not None}
    units: dict[Unit, Sums] = {}
    for (turn_id, step_id), (length, by_key) in latest.items():
        for key, answers in by_key.items():
            question = questions.get(key)
            if question is None or len(answers) < 2:
                continue
            try:
                units[(turn_id, step_id, key)] = unit_sums(
                    question,
                    list(answers.values()),
                    length=length if isinstance(question, SpansQuestion) else 0,
                )
            except (ValueError, TypeError, KeyError):
                continue
    return units


def _totals(project: int) -> dict[str, QuestionTotals]:
    return {row.question: row for row in QuestionTotals.objects.filter(project_id=project)}


def _totals_move(project: int, rubric: Rubric, moved: dict[str, Sums]) -> None:
    """Add each key's `moved` sums to its totals, under its question's shape now (totals kept
    under another shape are of no answers: the rubric's rule keeps a question with answers as
    it was); totals of no unit are emptied, not left with rounding's crumbs."""
    if not moved:
        return
    shapes = {q.key: shape_of(q) for q in rubric.questions}
    rows = _totals(project)
    for key, delta in sorted(moved.items()):
        row = rows.get(key) or QuestionTotals(project_id=project, question=key)
        shape = shapes.get(key, "")
        sums = sums_added(row.sums if row.shape == shape else {}, delta)
        row.shape, row.sums = shape, sums if int(sums.get("units", 0)) > 0 else {}
        row.save()
