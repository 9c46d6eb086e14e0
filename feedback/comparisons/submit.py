"""Comparisons sent to be judged (`POST /api/comparisons/`): validated whole, stored all or
nothing, each `comparison_id` once in its project."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from pydantic import ConfigDict, Field, model_validator

from core.accounts.roles import Action
from core.projects.rules import ratings_per_turn
from core.projects.selection import project_pk
from feedback.comparisons.answers import ComparisonsCreated, StoredComparison
from feedback.comparisons.models import Candidate, Comparison
from feedback.models import Turn
from learnportal_protocol.errors import ErrorCode, LearnError, detail, invalid
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import Name, RequiredText, StrictModel, Text

if TYPE_CHECKING:
    from core.accounts.principals import Principal

PRIORITY_BOUND = 1000
TURN_NOT_FOUND = "no such turn in this project"
TURN_PROMPT_DIFFERS = "the turn's prompt is not the comparison's"
TURN_TWICE = "the same turn twice in one comparison"


class CandidateItem(StrictModel):
    """A response inline (with the component, and the model, that gave it), or a queued turn."""

    # What `_one_kind` says, for the schema.
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["turn"],
                    "properties": {"turn": {"minLength": 1}},
                    "not": {
                        "anyOf": [
                            {"required": ["response"]},
                            {"required": ["component_name"]},
                            {"required": ["model"]},
                        ]
                    },
                },
                {
                    "required": ["response", "component_name"],
                    "properties": {"component_name": {"minLength": 1}, "turn": {"maxLength": 0}},
                },
            ]
        }
    )

    turn: Name = Field(default="", description="a queued turn: its id or its correlation_id")
    response: Text = Field(default="", description="the candidate response, inline")
    component_name: Name = Field(default="", description="the component that gave it (inline)")
    model: Name = Field(default="", description="the model that gave it (inline, optional)")

    @model_validator(mode="after")
    def _one_kind(self) -> CandidateItem:
        if self.turn:
            if self.model_fields_set & {"response", "component_name", "model"}:
                raise FieldError("turn", "a turn, or a response inline: not both")
        elif "response" not in self.model_fields_set:
            raise FieldError("response", "a response inline (with its component), or a `turn`")
        elif not self.component_name:
            raise FieldError("component_name", "the component that gave the response")
        return self


class ComparisonItem(StrictModel):
    comparison_id: Name = Field(
        default="", description="your id for it: sent again, it is stored once"
    )
    prompt: RequiredText
    candidates: list[CandidateItem] = Field(
        min_length=2,
        description="2 to LEARNPORTAL_MAX_CANDIDATES candidate responses to the prompt",
    )
    priority: int = Field(
        default=0,
        ge=-PRIORITY_BOUND,
        le=PRIORITY_BOUND,
        description="higher comes first in the queue",
    )

    @model_validator(mode="after")
    def _candidates_bounded(self) -> ComparisonItem:
        most = settings.LEARNPORTAL_MAX_CANDIDATES
        if not 2 <= len(self.candidates) <= most:
            raise FieldError("candidates", f"2 to {most} candidates, not {len(self.candidates)}")
        return self


class ComparisonsRequest(StrictModel):
    comparisons: list[ComparisonItem]


@dataclass(frozen=True)
class _Made:
    """A candidate as it will be stored: what it says, whichever way it was sent."""

    response: str
    component_name: str
    model: str
    turn_id: int | None


def comparisons_submit(*, principal: Principal, items: list[ComparisonItem]) -> ComparisonsCreated:
    """Store the comparisons not stored yet (a known `comparison_id`, or one repeated in the
    request, is the first one), all or nothing: each one's ids in the request's order."""
    principal.require(Action.SUBMIT_COMPARISONS)
    if len(items) > settings.LEARNPORTAL_MAX_BATCH:
        raise LearnError(
            ErrorCode.TOO_LARGE,
            f"{len(items)} comparisons in one request; "
            f"at most {settings.LEARNPORTAL_MAX_BATCH} are allowed.",
            [detail(["comparisons"], "too many items")],
        )
    project = project_pk(principal.project)
    made = _candidates_made(project, items)
    try:
        return _comparisons_store(principal, project, items, made)
    except IntegrityError:
        # Another request stored one of these ids between the look and the write: look again.
        return _comparisons_store(principal, project, items, made)


def _candidates_made(project: int, items: list[ComparisonItem]) -> list[list[_Made]]:
    """Each item's candidates, a turn's read from it; `invalid` naming every candidate that
    names no turn of the project, or one whose prompt is another."""
    refs = {c.turn for item in items for c in item.candidates if c.turn}
    turns = _turns_named(project, refs)
    problems: list[dict[str, Any]] = []
    made: list[list[_Made]] = []
    for i, item in enumerate(items):
        candidates: list[_Made] = []
        seen: set[int] = set()
        for j, candidate in enumerate(item.candidates):
            place: list[str | int] = ["comparisons", i, "candidates", j, "turn"]
            if not candidate.turn:
                sent = _Made(candidate.response, candidate.component_name, candidate.model, None)
                candidates.append(sent)
                continue
            turn = turns.get(candidate.turn)
            if turn is None:
                problems.append(detail(place, TURN_NOT_FOUND))
            elif turn.prompt != item.prompt:
                problems.append(detail(place, TURN_PROMPT_DIFFERS))
            elif turn.pk in seen:
                problems.append(detail(place, TURN_TWICE))
            else:
                seen.add(turn.pk)
                candidates.append(_Made(turn.response, turn.component_name, turn.model, turn.pk))
        made.append(candidates)
    if problems:
        raise invalid(
            f"{len(problems)} candidates name a turn they cannot be; nothing was stored.", problems
        )
    return made


def _turns_named(project: int, refs: set[str]) -> dict[str, Turn]:
    """The project's turn each reference names: its correlation_id, or else its id."""
    if not refs:
        return {}
    turns = Turn.objects.filter(project_id=project)
    named = {t.correlation_id: t for t in turns.filter(correlation_id__in=refs)}
    ids = {int(ref) for ref in refs - named.keys() if ref.isascii() and ref.isdigit()}
    by_id = {str(t.pk): t for t in turns.filter(pk__in=ids)} if ids else {}
    return {**by_id, **named}


def _comparisons_store(
    principal: Principal, project: int, items: list[ComparisonItem], made: list[list[_Made]]
) -> ComparisonsCreated:
    now = time.time()
    needed = ratings_per_turn(project)
    with transaction.atomic():
        sent_ids = {item.comparison_id for item in items if item.comparison_id}
        stored = {
            c.comparison_id: c
            for c in Comparison.objects.filter(project_id=project, comparison_id__in=sent_ids)
        }
        new: dict[str, tuple[Comparison, list[_Made]]] = {}
        order: list[str] = []
        for item, candidates in zip(items, made, strict=True):
            key = item.comparison_id or uuid.uuid4().hex
            order.append(key)
            if key in stored or key in new:
                continue
            row = Comparison(
                project_id=project,
                comparison_id=key,
                prompt=item.prompt,
                submitted_by=principal.name,
                created=now,
                judgments_needed=needed,
                priority=item.priority,
            )
            new[key] = (row, candidates)
        Comparison.objects.bulk_create([row for row, _ in new.values()])
        Candidate.objects.bulk_create(
            Candidate(
                comparison=row,
                candidate_id=uuid.uuid4().hex,
                position=position,
                response=c.response,
                component_name=c.component_name,
                model=c.model,
                turn_id=c.turn_id,
            )
            for row, candidates in new.values()
            for position, c in enumerate(candidates)
        )
        everyone = {**stored, **{key: row for key, (row, _) in new.items()}}
        ids = _candidate_ids([row.pk for row in everyone.values()])
    return ComparisonsCreated(
        received=len(items),
        created=len(new),
        comparisons=[
            StoredComparison(
                id=everyone[key].pk, comparison_id=key, candidates=ids[everyone[key].pk]
            )
            for key in order
        ],
    )


def _candidate_ids(comparisons: list[int]) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {pk: [] for pk in comparisons}
    rows = Candidate.objects.filter(comparison_id__in=comparisons).order_by("position")
    for comparison, candidate in rows.values_list("comparison_id", "candidate_id"):
        found[comparison].append(candidate)
    return found
