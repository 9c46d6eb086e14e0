"""Gold comparisons: a comparison whose best candidate a manager knows
(`PUT /api/comparisons/<id>/gold/`), mixed into each person's comparisons at the project's
`gold_rate` as gold turns are into their turns (feedback.gold.queue), and each judgment of one
scored in its transaction: it matches when it ranks the known best candidate alone first (a tie
for first does not). Its result counts with the gold turns' in the person's accuracy, and may
pause their queue by the same rule (feedback.gold.scoring).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef
from pydantic import Field

from core.accounts.roles import Action
from core.projects.rules import gold_rules
from core.projects.selection import project_pk
from feedback.comparisons.models import Candidate, Comparison, ComparisonSkip, Judgment
from feedback.gold.models import GoldComparison, GoldResult
from feedback.gold.scoring import pause_if_due
from learnportal_protocol.errors import detail, invalid, not_found
from learnportal_protocol.models import Name, StrictModel

if TYPE_CHECKING:
    from core.accounts.principals import Principal

NOT_A_CANDIDATE = "not a candidate of this comparison"
NO_GOLD = "this comparison is no gold item"


class GoldComparisonRequest(StrictModel):
    best: Name = Field(min_length=1, description="the candidate_id of the known best candidate")
    project: Name = Field(default="", description="the project, as `?project=`")


def gold_comparison_set(
    principal: Principal,
    comparison_id: int,
    request: GoldComparisonRequest,
    *,
    now: float | None = None,
) -> GoldComparison:
    """Mark the project's comparison as gold with its known best candidate (replacing the one
    it had), or refuse: `invalid` naming `best`."""
    principal.require(Action.MANAGE_GOLD)
    comparison = _comparison(principal, comparison_id)
    if not Candidate.objects.filter(comparison=comparison, candidate_id=request.best).exists():
        raise invalid(f"best: {NOT_A_CANDIDATE}", [detail(["best"], NOT_A_CANDIDATE)])
    gold, _ = GoldComparison.objects.update_or_create(
        comparison=comparison,
        defaults={
            "project_id": project_pk(principal.project),
            "best": request.best,
            "by": principal.name,
            "ts": time.time() if now is None else now,
        },
    )
    return gold


def gold_comparison_remove(principal: Principal, comparison_id: int) -> None:
    """Take the mark off (the results people had on it go with it)."""
    principal.require(Action.MANAGE_GOLD)
    comparison = _comparison(principal, comparison_id)
    deleted, _ = GoldComparison.objects.filter(comparison=comparison).delete()
    if not deleted:
        raise not_found(
            f"Comparison {comparison_id}: {NO_GOLD}.", [detail(["comparison"], NO_GOLD)]
        )


def gold_comparison_due(who: str, project: int) -> Comparison | None:
    """The gold comparison to lease to `who` now: while their gold comparisons judged fall
    short of the project's `gold_rate` of all they judged, the next one they have neither
    judged nor skipped; else None."""
    rate = gold_rules(project).rate
    if rate <= 0:
        return None
    judged = Judgment.objects.filter(project_id=project, annotator=who).count()
    answered = GoldResult.objects.filter(
        project_id=project, annotator=who, gold_comparison__isnull=False
    ).count()
    if answered >= rate * (judged + 1):
        return None
    mine = Judgment.objects.filter(comparison=OuterRef("pk"), annotator=who)
    skipped = ComparisonSkip.objects.filter(comparison=OuterRef("pk"), username=who)
    return (
        Comparison.objects.filter(
            Exists(GoldComparison.objects.filter(comparison=OuterRef("pk"))), project_id=project
        )
        .exclude(Exists(mine))
        .exclude(Exists(skipped))
        .order_by("id")
        .first()
    )


def is_gold_comparison() -> Exists:
    """For a query of comparisons: whether the outer one is gold."""
    return Exists(GoldComparison.objects.filter(comparison=OuterRef("pk")))


def gold_judgment_score(
    principal: Principal, comparison: Comparison, judgment: Judgment, *, now: float
) -> None:
    """Score this judgment, in its transaction, if its comparison is gold; then the pause
    rule. One query when it is not."""
    gold = GoldComparison.objects.filter(comparison=comparison).first()
    if gold is None:
        return
    first = min(judgment.ranks)
    best = [c for c, rank in zip(judgment.shown, judgment.ranks, strict=True) if rank == first]
    GoldResult.objects.update_or_create(
        gold_comparison=gold,
        annotator=principal.name,
        defaults={
            "project_id": gold.project_id,
            "rating_id": judgment.judgment_id,
            "compared": 1,
            "matched": int(best == [gold.best]),
            "ts": now,
        },
    )
    pause_if_due(principal, gold.project_id, now)


def _comparison(principal: Principal, comparison_id: int) -> Comparison:
    found = Comparison.objects.filter(
        pk=comparison_id, project_id=project_pk(principal.project)
    ).first()
    if found is None:
        raise not_found(
            f"No comparison {comparison_id} in this project.",
            [detail(["comparison"], "no such comparison")],
        )
    return found
