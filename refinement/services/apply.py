"""Applying a proposal: at once through `edits_apply`, or, for a machine's change a person must
see first (its risk, another principal's component, the trust window), queued for a reviewer.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.selectors import owners_of, speaks_for_all
from learnportal_protocol.messages import Applied
from refinement.change_text import change_text
from refinement.history import history_record
from refinement.models import Proposal, ProposalStatus, Refinement, RefinementStatus, Review
from refinement.paths import Target
from refinement.permissions import Verb, approvals_needed, approvers, by_person, may
from refinement.proposals import ProposalInput, parse_proposal
from refinement.review import Assessment, assess
from refinement.services.edits import Edit, edits_apply, new_id
from refinement.services.plans import plan_settle
from refinement.services.register import proposal_register, proposal_wire, stored_locked
from refinement.services.reviews import review_record
from refinement.trust_window import machine_wait
from refinement.vocabulary import ReviewKind, RiskLevel

if TYPE_CHECKING:
    from core.accounts.principals import Principal


def _human_approval(record: Proposal) -> Review | None:
    people = [ReviewKind.APPROVE, ReviewKind.REJECT]
    latest = record.reviews.filter(kind__in=people).order_by("-ts", "-id").first()
    if latest and latest.kind == ReviewKind.APPROVE and latest.proposal_hash == record.content_hash:
        return latest
    return None


def proposal_apply(*, principal: Principal, raw: dict[str, Any]) -> Applied:
    """Apply one proposal; a machine's apply above the auto-apply risk waits for a person."""
    principal.require(Action.APPLY)
    proposal = parse_proposal(raw)
    with transaction.atomic():
        record = proposal_register(principal, proposal)
        return _apply_record(principal, proposal, record)


def awaits_person(assessments: list[Assessment]) -> str:
    """Why a machine's refinement of these edits waits for a reviewer, or "" if it need not."""
    limit = RiskLevel(settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK)
    level = max((a.risk_level for a in assessments), default=RiskLevel.NONE)
    if any(a.needs_human for a in assessments):
        why = "it changes step settings, which always need a person"
    elif level > limit:
        why = f"its risk is {level}, above the auto-apply limit '{limit}'"
        risks = list(dict.fromkeys(reason for a in assessments for reason in a.risks))
        if risks:
            more = f"; and {len(risks) - 3} more" if len(risks) > 3 else ""
            why += f" ({'; '.join(risks[:3])}{more})"
    else:
        return ""
    return f"awaits approval by a reviewer: {why}"


def _apply_record(principal: Principal, proposal: ProposalInput, record: Proposal) -> Applied:
    """Apply one proposal (`edits_apply`); a machine's apply above the auto-apply risk is queued.

    The caller holds the proposal's row lock (`proposal_register` or `stored_locked`).
    """
    assessment = assess(proposal, project=project_pk(principal.project), lock=True)
    may(principal, Verb.APPLY, record, [assessment]).require()
    if by_person(principal):
        review_record(
            record, assessment, principal.key, ReviewKind.APPROVE, note="approved by applying"
        )
    else:
        review_record(record, assessment, principal.key, ReviewKind.AUTO)
        waiting = (
            awaits_person([assessment])
            or _others_component(principal, proposal)
            or _window_wait(proposal, assessment)
        )
        if waiting and (
            _human_approval(record) is None
            or len(approvers(record)) < approvals_needed([assessment])
        ):
            return _queue(principal, record, waiting)
    refinement = edits_apply(
        principal,
        record.plan,
        [Edit(proposal.location, proposal.old_value, proposal.new_value)],
        message=f"{proposal.path}: {change_text(proposal.path, assessment.current, proposal.new_value)}",
        refinement=record.refinements.filter(status=RefinementStatus.QUEUED).first(),
        proposal=record,
        current={proposal.path: assessment.current},
    )
    record.status = ProposalStatus.APPLIED
    record.save(update_fields=["status"])
    plan_settle(record.plan)
    return Applied(refinement_id=refinement.refinement_id, applied_edits=1, rollback_available=True)


def _window_wait(proposal: ProposalInput, assessment: Assessment) -> str:
    """A machine's change of a path changed too often lately, or its weight move past what the
    trust window has room for, waits for a person."""
    weight = proposal.target is Target.ROUTER_WEIGHT and assessment.current is not None
    moves = (float(assessment.current), float(proposal.new_value)) if weight else None
    return machine_wait(proposal.path, moves, now=time.time())


def _others_component(principal: Principal, proposal: ProposalInput) -> str:
    """A machine's move of another principal's component's weight waits for a person."""
    component = proposal.location.component
    if proposal.target is not Target.ROUTER_WEIGHT or not component:
        return ""
    owner = owners_of(project_pk(principal.project), [component]).get(component)
    if owner is None or owner == principal.key or speaks_for_all(principal.role):
        return ""
    return f"awaits approval by a reviewer: {component!r} is another principal's component"


def _queue(principal: Principal, record: Proposal, error: str) -> Applied:
    refinement = record.refinements.filter(status=RefinementStatus.QUEUED).first()
    if refinement is None:
        refinement = Refinement.objects.create(
            refinement_id=new_id("ref"),
            proposal=record,
            plan=record.plan,
            status=RefinementStatus.QUEUED,
            actor=principal.key,
            ts=time.time(),
        )
    refinement.error = error
    refinement.save(update_fields=["error"])
    record.status = ProposalStatus.QUEUED
    record.save(update_fields=["status"])
    history_record(
        "queue",
        principal.key,
        project=principal.project,
        plan_id=record.plan.plan_id if record.plan else "",
        proposal=record,
        refinement_id=refinement.refinement_id,
        message=error,
    )
    return Applied(refinement_id=refinement.refinement_id, error=error)


def proposal_apply_stored(
    *, principal: Principal, proposal_id: str, requested_by: str = "", plan_id: str = ""
) -> Applied:
    """A person applies a stored proposal (from the dashboard or the REST API)."""
    principal.require(Action.DECIDE)
    with transaction.atomic():
        record = stored_locked(proposal_id, requested_by, plan_id)
        return _apply_record(principal, parse_proposal(proposal_wire(record)), record)
