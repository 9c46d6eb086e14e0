"""A person's judgment of a comparison (`POST /api/comparisons/<id>/judgments/`), by the rules
a rating of a turn keeps (feedback.raters): one judgment a person, as many distinct people as
the comparison needs, a newcomer refused when it has them or when the ones left are leased to
others, the lease holder always heard; the judgment ends their lease.

A judgment is kept as the candidates in the order shown to its judge and each one's rank in
that order (0 best): a preference of two is [0, 1], [1, 0] or the tie [0, 0]; a ranking of
any number is a rank each, all different.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import F
from pydantic import Field, model_validator

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.comparisons.evidence import judgment_as_evidence
from feedback.comparisons.models import Comparison, Judgment
from feedback.comparisons.queue import candidates_shown, lease_end, live_holders
from feedback.gold.comparisons import gold_judgment_score
from feedback.rubrics.answers import answers_clean
from feedback.services.rubrics import rubric_current
from learnportal_protocol.errors import LearnError, conflict, detail, invalid, not_found
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import Name, StrictModel, Text
from learnportal_protocol.wire import summarize

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from feedback.rubrics.questions import Rubric

PREFERENCE_BOUND = 2  # -2: the first shown much better ... 2: the second much better
JUDGED_ALREADY = "you judged this comparison already"
# As feedback.raters says of ratings, in the words of judgments.
JUDGED_ENOUGH = "this comparison has the {needed} judgments it needs from distinct people"
LEASED_TO_OTHERS = "the judgments this comparison still needs are leased to other people"
RATIONALE_LENGTH = 10_000
NOT_A_CANDIDATE = "not a candidate of this comparison"


class JudgmentRequest(StrictModel):
    preference: int | None = Field(
        default=None,
        ge=-PREFERENCE_BOUND,
        le=PREFERENCE_BOUND,
        description="for two candidates, in the order shown to you: -2 the first much better, "
        "-1 the first better, 0 a tie, 1 the second better, 2 the second much better",
    )
    ranking: list[Name] | None = Field(
        default=None, description="every candidate_id of the comparison, best first"
    )
    rationale: Text = Field(default="", max_length=RATIONALE_LENGTH, description="why, in words")
    answers: dict[Name, dict[str, Any]] = Field(
        default_factory=dict,
        description="for each candidate_id, its answers to the rubric's questions of candidates "
        "(`candidates: true`), as a rating's answers",
    )

    @model_validator(mode="after")
    def _one_judgment(self) -> JudgmentRequest:
        if (self.preference is None) == (self.ranking is None):
            raise FieldError("preference", "a `preference` of two, or a `ranking`: one of them")
        return self


@dataclass(frozen=True)
class Judged:
    judgment_id: str
    ranking: list[str]  # best first
    tie: bool


def judgment_record(
    *, principal: Principal, comparison: int, judgment: JudgmentRequest, now: float | None = None
) -> Judged:
    """Store this person's judgment of the comparison, or refuse it whole."""
    principal.require(Action.QUEUE)
    now = time.time() if now is None else now
    who = principal.name
    project = project_pk(principal.project)
    with transaction.atomic():
        found = (
            Comparison.objects.select_for_update().filter(pk=comparison, project_id=project).first()
        )
        if found is None:
            raise not_found(
                f"No comparison {comparison} in this project.",
                [detail(["comparison"], "no such comparison")],
            )
        candidates = candidates_shown(found.pk, who)
        shown = [candidate for candidate, _ in candidates]
        ranks = ranks_of(judgment, shown)
        _may_judge(found, who, now)
        rubric = rubric_current(project)
        answers = candidate_answers(rubric.rubric, judgment.answers, dict(candidates))
        row = Judgment.objects.create(
            judgment_id=uuid.uuid4().hex,
            project_id=project,
            comparison=found,
            annotator=who,
            shown=shown,
            ranks=ranks,
            preference=judgment.preference,
            rationale=judgment.rationale,
            answers=answers,
            rubric_version=rubric.version,
            ts=now,
        )
        Comparison.objects.filter(pk=found.pk, judgments_needed__gt=0).update(
            judgments_needed=F("judgments_needed") - 1
        )
        lease_end(who, found.pk)
        gold_judgment_score(principal, found, row, now=now)
        judgment_as_evidence(principal, found, row)
    ranking = [shown[i] for i in sorted(range(len(shown)), key=ranks.__getitem__)]
    return Judged(row.judgment_id, ranking, tie=len(set(ranks)) < len(ranks))


def ranks_of(judgment: JudgmentRequest, shown: list[str]) -> list[int]:
    """Each shown candidate's rank (0 best), or `invalid` naming what does not fit."""
    if judgment.preference is not None:
        if len(shown) != 2:
            raise invalid(
                f"A preference compares two candidates; this comparison has {len(shown)}: "
                "rank them with `ranking`.",
                [detail(["preference"], f"for two candidates, not {len(shown)}: use `ranking`")],
            )
        if judgment.preference == 0:
            return [0, 0]
        return [0, 1] if judgment.preference < 0 else [1, 0]
    assert judgment.ranking is not None  # JudgmentRequest._one_judgment
    if sorted(judgment.ranking) != sorted(shown):
        raise invalid(
            "A ranking names each candidate of the comparison once.",
            [detail(["ranking"], f"each of the {len(shown)} candidate_ids once, best first")],
        )
    return [judgment.ranking.index(candidate) for candidate in shown]


def candidate_answers(
    rubric: Rubric, sent: dict[str, dict[str, Any]], responses: dict[str, str]
) -> dict[str, dict[str, Any]]:
    """Each candidate's answers (`responses`: each candidate id's response, in the order shown)
    normalised, by question key then candidate id; or `invalid` naming every bad one as
    `["answers", candidate_id, key]`, and a candidate that is none of these as
    `["answers", candidate_id]`."""
    # The first id of no candidate names them all: a refusal as short as the request is long.
    strangers = [candidate for candidate in sent if candidate not in responses]
    problems = (
        [detail(["answers", strangers[0]], f"{NOT_A_CANDIDATE} ({len(strangers)} such ids)")]
        if strangers
        else []
    )
    by_key: dict[str, dict[str, Any]] = {}
    for candidate, response in responses.items():
        try:
            clean = answers_clean(
                rubric, sent.get(candidate, {}), response=response, candidate=True
            )
        except LearnError as refused:
            problems += [
                {**line, "loc": ["answers", candidate, *line["loc"][1:]]}
                for line in refused.details
            ]
            continue
        for key, value in clean.items():
            by_key.setdefault(key, {})[candidate] = value
    if problems:
        raise invalid(summarize(problems), problems)
    return by_key


def _may_judge(comparison: Comparison, who: str, now: float) -> None:
    if Judgment.objects.filter(comparison=comparison, annotator=who).exists():
        raise conflict(
            f"You judged comparison {comparison.pk} already.",
            [detail(["comparison"], JUDGED_ALREADY)],
        )
    holders = live_holders(comparison.pk, now)
    if who in holders:
        return
    if comparison.judgments_needed <= 0:
        judged = Judgment.objects.filter(comparison=comparison).count()
        said = JUDGED_ENOUGH.format(needed=judged)
    elif comparison.judgments_needed <= len(holders):
        said = LEASED_TO_OTHERS
    else:
        return
    raise conflict(f"Comparison {comparison.pk}: {said}.", [detail(["comparison"], said)])
