"""Adapt's bounded weight steps, applied as one refinement: one lock, one write per table.

Adapt moves every weight at once, up to a thousand of them. Going through the one-proposal
apply path for each cost about 26 queries a weight (BENCHMARKS.md); here the same rules hold
(compare-and-swap under lock, a before/after per edit, an automatic review per proposal, one
revision per path, a history entry) in a handful of statements, and the whole adapt rolls back
as one refinement.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from learnportal.accounts.principals import Principal
from learnportal.protocol.errors import conflict, detail
from refinement import store
from refinement.history import history_record
from refinement.models import (
    Plan,
    Proposal,
    ProposalStatus,
    Refinement,
    RefinementStatus,
    Review,
)
from refinement.paths import Location, Target, weight_path
from refinement.proposals import ProposalInput
from refinement.review import describe, same_value, weight_step_risk
from refinement.services import new_id


@dataclass(frozen=True)
class WeightStep:
    component: str
    before: float
    after: float
    reason: str

    @property
    def proposal(self) -> ProposalInput:
        return ProposalInput(
            target=Target.ROUTER_WEIGHT,
            op="update",
            path=weight_path(self.component),
            old_value=self.before,
            new_value=self.after,
            reason=self.reason,
        )


def weights_apply(principal: Principal, plan: Plan, steps: list[WeightStep]) -> Refinement | None:
    """Apply the steps as one refinement of `plan`; `conflict` if a weight moved meanwhile."""
    if not steps:
        return None
    now = time.time()
    locations = [
        Location(Target.ROUTER_WEIGHT, weight_path(s.component), component=s.component)
        for s in steps
    ]
    current = store.read_many(locations, lock=True)  # in path order, as every writer locks
    stale = [
        detail(
            ["component_name"],
            f"{location.path}: expected {describe(step.before)}, "
            f"found {describe(current[location.path])}",
        )
        for location, step in zip(locations, steps, strict=True)
        if not same_value(current[location.path], step.before)
    ]
    if stale:
        raise conflict("Routing weights changed while adapting; adapt again.", stale)
    edits = [
        {
            "path": location.path,
            "target": Target.ROUTER_WEIGHT.value,
            "before": step.before,
            "after": step.after,
        }
        for location, step in zip(locations, steps, strict=True)
    ]
    refinement = Refinement.objects.create(
        refinement_id=new_id("ref"),
        plan=plan,
        status=RefinementStatus.APPLIED,
        actor=principal.key,
        edits=edits,
        ts=now,
    )
    proposals_file(principal, plan, steps, status=ProposalStatus.APPLIED)
    store.write_many(
        [(location, step.after) for location, step in zip(locations, steps, strict=True)],
        actor=principal.key,
        refinement=refinement,
    )
    history_record(
        "apply",
        principal.key,
        plan_id=plan.plan_id,
        refinement_id=refinement.refinement_id,
        message=f"{len(edits)} routing weights moved within the trust region",
        diff=edits,
    )
    return refinement


def proposals_file(
    principal: Principal, plan: Plan, steps: list[WeightStep], *, status: ProposalStatus
) -> list[Proposal]:
    """Store weight proposals of `plan` with their automatic reviews, in two statements."""
    now = time.time()
    records = []
    for step in steps:
        proposal = step.proposal
        level, _ = weight_step_risk(step.before, step.after)
        records.append(
            Proposal(
                proposal_id=new_id("prop"),
                plan=plan,
                target=proposal.target.value,
                op="update",
                path=proposal.path,
                old_value=step.before,
                new_value=step.after,
                reason=step.reason,
                content_hash=proposal.content_hash,
                risk_level=level,
                status=status,
                requested_by=principal.key,
                created=now,
            )
        )
    Proposal.objects.bulk_create(records)
    Review.objects.bulk_create(
        Review(
            proposal=record,
            kind="auto",
            approved=True,
            risk_level=record.risk_level,
            reasons=[reason] if (reason := weight_step_risk(step.before, step.after)[1]) else [],
            reviewer=principal.key,
            proposal_hash=record.content_hash,
            ts=now,
        )
        for record, step in zip(records, steps, strict=True)
    )
    return records
