"""A person's approval or rejection of a stored proposal, and what each person may do with each
proposal now (for a page, which disables what the server would refuse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from core.accounts.roles import Action
from core.projects.selection import project_pk
from learnportal_protocol.errors import detail, invalid
from refinement.history import history_record
from refinement.models import Proposal, ProposalStatus, RefinementStatus, Review
from refinement.permissions import Permission, Verb, may
from refinement.proposals import parse_proposal
from refinement.review import Assessment, assess, assess_all
from refinement.services.plans import plan_settle
from refinement.services.register import proposal_wire, stored_locked
from refinement.services.reviews import review_record
from refinement.vocabulary import ReviewKind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.accounts.principals import Principal


def proposal_approve(
    *,
    principal: Principal,
    proposal_id: str,
    note: str = "",
    requested_by: str = "",
    plan_id: str = "",
) -> Review:
    principal.require(Action.DECIDE)
    with transaction.atomic():
        record = stored_locked(proposal_id, requested_by, plan_id)
        assessment = assess(
            parse_proposal(proposal_wire(record)), project=project_pk(principal.project)
        )
        may(principal, Verb.APPROVE, record, [assessment]).require()
        review = review_record(record, assessment, principal.key, ReviewKind.APPROVE, note=note)
        record.status = (
            ProposalStatus.APPROVED if record.status != ProposalStatus.QUEUED else record.status
        )
        record.save(update_fields=["status"])
        history_record(
            "approve",
            principal.key,
            project=principal.project,
            plan_id=record.plan.plan_id if record.plan else "",
            proposal=record,
            message=note or f"approved at risk {assessment.risk_level}",
        )
    return review


def proposal_reject(
    *,
    principal: Principal,
    proposal_id: str,
    reason: str,
    requested_by: str = "",
    plan_id: str = "",
) -> Review:
    principal.require(Action.DECIDE)
    if not reason.strip():
        raise invalid("Say why the proposal is rejected.", [detail(["reason"], "required")])
    with transaction.atomic():
        record = stored_locked(proposal_id, requested_by, plan_id)
        assessment = assess(
            parse_proposal(proposal_wire(record)), project=project_pk(principal.project)
        )
        may(principal, Verb.REJECT, record, [assessment]).require()
        review = review_record(record, assessment, principal.key, ReviewKind.REJECT, note=reason)
        record.status = ProposalStatus.REJECTED
        record.save(update_fields=["status"])
        record.refinements.filter(status=RefinementStatus.QUEUED).update(
            status=RefinementStatus.REJECTED, error=f"rejected: {reason}"
        )
        plan_settle(record.plan)
        history_record(
            "reject",
            principal.key,
            project=principal.project,
            plan_id=record.plan.plan_id if record.plan else "",
            proposal=record,
            message=reason,
        )
    return review


def proposal_permissions(
    *, principal: Principal, records: Sequence[Proposal]
) -> dict[str, tuple[Assessment, dict[Verb, Permission]]]:
    """Each proposal's review now and what this person may do with it, by id (for a page)."""
    assessments = assess_all(
        [parse_proposal(proposal_wire(r)) for r in records], project=project_pk(principal.project)
    )
    return {
        record.proposal_id: (
            assessment,
            {
                verb: may(principal, verb, record, [assessment])
                for verb in (Verb.APPROVE, Verb.REJECT, Verb.APPLY)
            },
        )
        for record, assessment in zip(records, assessments, strict=True)
    }
