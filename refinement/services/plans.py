"""Filing a plan of proposals, each with its automatic review, and settling a plan once every
proposal of it is decided.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from core.projects.selection import project_pk
from refinement.history import history_record
from refinement.models import OPEN_PROPOSAL, Plan, Proposal
from refinement.review import assess
from refinement.services.edits import new_id
from refinement.services.register import proposal_register, proposal_wire
from refinement.services.reviews import review_record
from refinement.vocabulary import PlanStatus, ReviewKind

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from refinement.proposals import ProposalInput


def plan_file(
    principal: Principal,
    proposals: list[ProposalInput],
    *,
    origin: str,
    summary: str,
    component_name: str = "",
    scope: str = "local",
) -> tuple[Plan, list[Proposal]]:
    """File a plan of proposals, each with its automatic review, and record it in the history.

    Call inside the caller's transaction.
    """
    plan = Plan.objects.create(
        plan_id=new_id("plan"),
        origin=origin,
        component_name=component_name,
        scope=scope,
        requested_by=principal.key,
        status=PlanStatus.READY if proposals else PlanStatus.EMPTY,
        summary=summary,
        created=time.time(),
    )
    records = []
    for proposal in proposals:
        record = proposal_register(principal, proposal, plan=plan)
        review_record(
            record,
            assess(proposal, project=project_pk(principal.project)),
            principal.key,
            ReviewKind.AUTO,
        )
        records.append(record)
    history_record(
        "plan",
        principal.key,
        project=principal.project,
        plan_id=plan.plan_id,
        message=summary,
        diff=[proposal_wire(r) for r in records],
    )
    return plan, records


def plan_settle(plan: Plan | None) -> None:
    """A ready plan whose every proposal is decided (applied, rejected, rolled back) is done."""
    if plan is None or plan.status != PlanStatus.READY:
        return
    if not plan.proposals.filter(status__in=OPEN_PROPOSAL).exists():
        plan.status = PlanStatus.DONE
        plan.save(update_fields=["status"])
