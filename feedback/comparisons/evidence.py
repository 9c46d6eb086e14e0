"""Judged comparisons as routing evidence, where a project lets them count
(`comparisons_as_evidence`): each judgment an experience of its best-ranked candidate's
component (a success, reward 1) and one of its worst-ranked's (a failure, reward -1), written
with the judgment, as the person's, for whichever components they name.

A tie, or the same component best and worst, says nothing about routing and writes nothing. The
middle of a longer ranking is neither the winner nor the loser. Nothing routed these calls, so
they carry no `action_prob` (no behaviour policy to weigh them against: PPO uses the weights in
force, off-policy estimates leave them out) and they are no calls in the stats. They count
against the judge's experience quota (`LEARNPORTAL_EXPERIENCE_LIMIT`): past it, with
`LEARNPORTAL_EXPERIENCE_OVERFLOW=reject`, a judgment is stored without its evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from core.projects.rules import comparisons_as_evidence
from core.projects.selection import project_pk
from feedback.comparisons.models import Candidate
from feedback.services.experiences import experiences_write
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.models import Action, Experience

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from feedback.comparisons.models import Comparison, Judgment

WON, LOST = 1.0, -1.0


def judged_experiences(
    comparison: Comparison, judgment: Judgment, components: dict[str, str]
) -> list[Experience]:
    """The two experiences a judgment is (none for a tie): `components` is each candidate id's
    component."""
    ranked = sorted(zip(judgment.ranks, judgment.shown, strict=True))
    (best, winner), (worst, loser) = ranked[0], ranked[-1]
    won, lost = components[winner], components[loser]
    if best == worst or won == lost or not (won and lost):
        return []
    state = {"comparison": comparison.comparison_id, "judgment": judgment.judgment_id}
    return [
        Experience(
            experience_id=f"judgment-{judgment.judgment_id}-{outcome}",
            state=state,
            action=Action(component_name=component, success=reward > 0),
            reward=reward,
            done=True,
            episode_id=comparison.comparison_id,
            ts=judgment.ts,
        )
        for outcome, component, reward in (("won", won, WON), ("lost", lost, LOST))
    ]


def judgment_as_evidence(principal: Principal, comparison: Comparison, judgment: Judgment) -> int:
    """Write the judgment's experiences, inside its transaction, where its project lets
    comparisons count: how many."""
    if not comparisons_as_evidence(project_pk(principal.project)):
        return 0
    components = dict(
        Candidate.objects.filter(comparison=comparison).values_list(
            "candidate_id", "component_name"
        )
    )
    experiences = judged_experiences(comparison, judgment, components)
    if not experiences:
        return 0
    try:
        with transaction.atomic():  # a savepoint: past the quota, the judgment stays
            experiences_write(
                owner=principal.key,
                project=principal.project,
                experiences=experiences,
                policy=None,
                attributed=lambda names: names,
                by=principal.name,
                calls=False,
            )
    except LearnError as refused:
        if refused.code is not ErrorCode.QUOTA_EXCEEDED:
            raise
        return 0
    return len(experiences)
