"""The stored proposal a request stands for: found by its ids or its content, changed, or
created, its row locked (the first lock of every write).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.db.models import Q

from core.accounts.roles import Role
from learnportal_protocol.errors import conflict, detail, forbidden
from refinement.answers import ProposalWire
from refinement.history import history_record
from refinement.models import APPLIED_PROPOSAL, OPEN_PROPOSAL, Plan, Proposal, ProposalStatus
from refinement.proposal_ids import own, reachable_plan, resendable, stored_proposal
from refinement.services.edits import locked, new_id

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from refinement.proposals import ProposalInput


def proposal_wire(record: Proposal) -> dict[str, Any]:
    """A stored proposal as the JSON the wire carries (`ProposalWire`)."""
    return ProposalWire.of(record).model_dump(mode="json")


def proposal_register(
    principal: Principal, proposal: ProposalInput, *, plan: Plan | None = None
) -> Proposal:
    """The stored proposal this input stands for, its row locked: the first lock of a write.

    Its ids resolve where `refinement.proposal_ids` says: a `proposal_id` among this principal's
    own proposals, or within the plan its `plan_id` names. A known id with new content changes
    the proposal: only its requester (a plan's requester for its proposals) or an admin may,
    and the change drops earlier approvals. Adding a new proposal to a plan via `plan_id` is the
    same kind of change.
    """
    named = plan or reachable_plan(principal, proposal.plan_id)
    proposals = locked(Proposal.objects.select_related("plan"))
    record = None
    if proposal.proposal_id:
        scope = Q(plan=named) if named is not None else own(principal)
        record = proposals.filter(scope, proposal_id=proposal.proposal_id).first()
    if record is None and plan is None:
        # The same edit sent again without its ids (review, then apply; or copied out of a
        # plan) is the same open proposal, so its plan's four-eyes rule still holds.
        record = (
            proposals.filter(
                resendable(principal),
                content_hash=proposal.content_hash,
                status__in=OPEN_PROPOSAL,
            )
            .order_by("-id")
            .first()
        )
    if record is None:
        return _proposal_create(principal, proposal, named)
    if record.content_hash != proposal.content_hash:
        owner = record.plan.requested_by if record.plan else record.requested_by
        if not _may_change(principal, owner):
            raise forbidden(
                f"Proposal {record.proposal_id} belongs to {owner}; only they or an admin may "
                "change it. Send it unchanged, or file your change as a new proposal.",
                [detail(["proposal", "proposal_id"], "a proposal of another principal")],
            )
        if record.status in APPLIED_PROPOSAL:
            raise conflict(
                f"Proposal {record.proposal_id} was already applied with other content; "
                "send the change as a new proposal.",
                [detail(["proposal", "proposal_id"], "already applied with other content")],
            )
        before = proposal_wire(record)
        record.op, record.path = proposal.op, proposal.path
        record.old_value, record.new_value = proposal.old_value, proposal.new_value
        record.target, record.step_id = proposal.target.value, proposal.step_id
        record.content_hash, record.status = proposal.content_hash, ProposalStatus.PENDING
        record.save()
        history_record(
            "change",
            principal.key,
            project=principal.project,
            plan_id=record.plan.plan_id if record.plan else "",
            proposal=record,
            message="The proposal changed after review; earlier approvals no longer count.",
            diff=[{"before": before, "after": proposal_wire(record)}],
        )
    return record


def _proposal_create(principal: Principal, proposal: ProposalInput, plan: Plan | None) -> Proposal:
    if plan is not None and not _may_change(principal, plan.requested_by):
        raise forbidden(
            f"Plan {plan.plan_id} belongs to {plan.requested_by}; only they or an admin "
            "may add proposals to it. Send the proposal without its plan_id.",
            [detail(["proposal", "plan_id"], "a plan of another principal")],
        )
    taken = conflict(
        f"You use proposal_id {proposal.proposal_id!r} already, for another proposal; "
        "choose a new one, or leave it out.",
        [detail(["proposal", "proposal_id"], "already used by this principal")],
    )
    if (
        proposal.proposal_id
        and Proposal.objects.filter(own(principal), proposal_id=proposal.proposal_id).exists()
    ):
        raise taken
    try:
        with transaction.atomic():  # a concurrent request may take the id first
            return Proposal.objects.create(
                proposal_id=proposal.proposal_id or new_id("prop"),
                plan=plan,
                target=proposal.target.value,
                op=proposal.op,
                path=proposal.path,
                old_value=proposal.old_value,
                new_value=proposal.new_value,
                reason=proposal.reason,
                step_id=proposal.step_id,
                content_hash=proposal.content_hash,
                requested_by=principal.key,
                created=time.time(),
            )
    except IntegrityError:
        raise taken from None


def _may_change(principal: Principal, owner: str) -> bool:
    return principal.key == owner or principal.role is Role.ADMIN


def stored_locked(proposal_id: str, requested_by: str, plan_id: str) -> Proposal:
    """A proposal a person names (`proposal_ids.stored_proposal`), its row locked."""
    rows = locked(Proposal.objects.select_related("plan"))
    return stored_proposal(rows, proposal_id, requested_by=requested_by, plan_id=plan_id)
