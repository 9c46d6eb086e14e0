"""Marking a turn as a gold item (`PUT /api/turns/<id>/gold/`), its known answers checked as a rating's
are but none required, and only for questions an answer can match (numeric, categorical,
boolean); and taking the mark off. Managers and site admins only: the answers are kept from
the people they measure."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pydantic import Field

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.gold.models import GoldItem
from feedback.rubrics.answers import answers_clean
from feedback.rubrics.questions import BooleanQuestion, CategoricalQuestion, NumericQuestion
from feedback.selectors.turns import turn_in_project
from feedback.services.rubrics import rubric_current
from learnportal_protocol.errors import detail, invalid, not_found
from learnportal_protocol.models import Name, StrictModel

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from feedback.models import Turn

GRADABLE = (NumericQuestion, CategoricalQuestion, BooleanQuestion)
NOT_GRADABLE = "a gold answer is to a numeric, categorical or boolean question"
NONE_KNOWN = "a gold item knows the answer to one question at least"
NO_GOLD = "this turn is no gold item"


class GoldRequest(StrictModel):
    answers: dict[str, Any] = Field(
        description="question key to the known answer, as a rating gives it; one at least"
    )
    project: Name = Field(default="", description="the project, as `?project=`")


def gold_set(
    principal: Principal, turn_id: int, request: GoldRequest, *, now: float | None = None
) -> GoldItem:
    """Mark the project's turn `turn_id` as gold with these known answers (replacing the ones
    it had), or refuse them all, naming each: `invalid` with `["answers", key]`."""
    principal.require(Action.MANAGE_GOLD)
    project = project_pk(principal.project)
    turn = _turn(principal, turn_id)
    stored = rubric_current(project)
    questions = stored.rubric.by_key()
    refused = [
        detail(["answers", key], NOT_GRADABLE)
        for key in request.answers
        if key in questions and not isinstance(questions[key], GRADABLE)
    ]
    if refused:
        raise invalid(f"answers: {NOT_GRADABLE}", refused)
    clean = answers_clean(stored.rubric, request.answers, response=turn.response, partial=True)
    if not clean:
        raise invalid(f"answers: {NONE_KNOWN}", [detail(["answers"], NONE_KNOWN)])
    gold, _ = GoldItem.objects.update_or_create(
        project_id=project,
        turn=turn,
        defaults={
            "answers": clean,
            "rubric_version": stored.version,
            "by": principal.name,
            "ts": time.time() if now is None else now,
        },
    )
    return gold


def gold_remove(principal: Principal, turn_id: int) -> None:
    """Take the gold mark off the turn; the results people had on it go with it."""
    principal.require(Action.MANAGE_GOLD)
    turn = _turn(principal, turn_id)
    marked = GoldItem.objects.filter(project_id=project_pk(principal.project), turn=turn)
    deleted, _ = marked.delete()
    if not deleted:
        raise not_found(f"Turn {turn_id} is no gold item.", [detail(["turn"], NO_GOLD)])


def _turn(principal: Principal, turn_id: int) -> Turn:
    turn = turn_in_project(turn_id, principal.project)
    if turn is None:
        raise not_found("No such turn in this project.", [detail(["turn"], "no such turn")])
    return turn
