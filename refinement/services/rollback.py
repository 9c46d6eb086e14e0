"""Rolling back an applied refinement with a new refinement of its before values: reviewed as
any apply, and queued for a person when a machine's undo is above the auto-apply risk.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from django.db import transaction
from pydantic import ValidationError

from core.accounts.roles import Action
from core.projects.selection import project_pk
from learnportal_protocol.errors import LearnError, conflict, detail, not_found
from refinement.answers import RolledBack
from refinement.history import history_record
from refinement.models import Proposal, ProposalStatus, Refinement, RefinementStatus
from refinement.paths import Target
from refinement.permissions import Permission, Verb, by_person, may
from refinement.proposals import ProposalInput
from refinement.review import Assessment, assess_all
from refinement.services.apply import awaits_person
from refinement.services.edits import Edit, edits_apply, locked, new_id

if TYPE_CHECKING:
    from core.accounts.principals import Principal


def refinement_rollback(*, principal: Principal, refinement_id: str) -> RolledBack:
    """Undo an applied refinement with a new refinement built from its before values.

    The undo is a refinement like any other: its edits pass the same review as an apply (stale
    values, the steps' gates, the risk rules), and a machine's undo above the auto-apply risk
    waits for a person, queued. A reviewer's or admin's rollback is that person's approval: it
    applies the queued undo.
    """
    principal.require(Action.ROLLBACK)
    with transaction.atomic():
        original = _rollback_target(refinement_id)
        undo = Refinement.objects.filter(rollback_of=original).first()  # a queued one, if any
        reverse, proposals, assessments = _rollback_review(principal, original, lock=True)
        waiting = "" if by_person(principal) else awaits_person(assessments)
        if waiting:
            return _queue_rollback(principal, original, undo, reverse, waiting)
        queued_by = undo.actor if undo else ""
        undo = edits_apply(
            principal,
            original.plan,
            [Edit(p.location, p.old_value, p.new_value) for p in proposals],
            message=f"rolled back {refinement_id}"
            + (f" (queued by {queued_by}, approved by rolling back)" if queued_by else ""),
            refinement=undo,
            rollback_of=original,
            current={p.path: a.current for p, a in zip(proposals, assessments, strict=True)},
            stale_loc=("refinement_id",),
        )
        original.status = RefinementStatus.ROLLED_BACK
        original.save(update_fields=["status"])
        if original.proposal_id:
            Proposal.objects.filter(pk=original.proposal_id).update(
                status=ProposalStatus.ROLLED_BACK
            )
    return RolledBack(
        refinement_id=refinement_id, rolled_back=True, rollback_refinement_id=undo.refinement_id
    )


def _rollback_review(
    principal: Principal, original: Refinement, *, lock: bool
) -> tuple[list[dict[str, Any]], list[ProposalInput], list[Assessment]]:
    """The undo's edits, as proposals, and their review; refused (`may`) if it may not happen."""
    may(principal, Verb.ROLLBACK, original, []).require()  # who, and whether it is applied
    reverse = [
        {"path": e["path"], "target": e["target"], "before": e["after"], "after": e["before"]}
        for e in reversed(original.edits)
    ]
    proposals = _reverse_proposals(original, reverse)
    assessments = assess_all(proposals, project=project_pk(principal.project), lock=lock)
    may(principal, Verb.ROLLBACK, original, assessments).require()  # and what it would write
    return reverse, proposals, assessments


def rollback_permission(*, principal: Principal, refinement: Refinement) -> Permission:
    """Whether this person may roll `refinement` back now (for a page; nothing is locked)."""
    try:
        _rollback_review(principal, refinement, lock=False)
    except LearnError as error:
        return Permission(False, error.code, error.message, error.details)
    return Permission(True)


def _rollback_target(refinement_id: str) -> Refinement:
    """The refinement to roll back, locked after its proposal's row (the one lock order)."""
    found = Refinement.objects.filter(refinement_id=refinement_id).values("proposal_id").first()
    if found is None:
        raise not_found(f"No refinement {refinement_id!r}.")
    if found["proposal_id"]:
        locked(Proposal.objects.filter(pk=found["proposal_id"])).first()
    return locked(Refinement.objects.select_related("plan", "proposal")).get(
        refinement_id=refinement_id
    )


def _reverse_proposals(original: Refinement, reverse: list[dict[str, Any]]) -> list[ProposalInput]:
    """The undo's edits as proposals, so that they meet the rules every proposal meets."""
    step_id = _step_of(original)
    proposals = []
    for edit in reverse:
        old, new = edit["before"], edit["after"]
        op = "update"
        if edit["target"] == Target.SKILL_FILE.value and (old is None) != (new is None):
            op = "create" if old is None else "delete"
        try:
            proposals.append(
                ProposalInput(
                    target=Target(edit["target"]),
                    op=op,
                    path=edit["path"],
                    old_value=old,
                    new_value=new,
                    step_id=step_id,
                )
            )
        except (ValueError, ValidationError):
            raise conflict(
                f"{original.refinement_id} cannot be rolled back: its edit of {edit['path']!r} "
                "is not one a proposal may make any more.",
                [detail(["refinement_id"], f"{edit['path']}: not a writable edit")],
            ) from None
    return proposals


def _step_of(refinement: Refinement) -> str:
    """The step a refinement's proposal wrote for (a run's global edit is gated by its step)."""
    seen = 0
    while seen < 100 and refinement.proposal_id is None and refinement.rollback_of is not None:
        refinement, seen = refinement.rollback_of, seen + 1
    return refinement.proposal.step_id if refinement.proposal is not None else ""


def _queue_rollback(
    principal: Principal,
    original: Refinement,
    undo: Refinement | None,
    reverse: list[dict[str, Any]],
    error: str,
) -> RolledBack:
    """A machine's undo above the auto-apply risk: one queued refinement, until a person acts."""
    if undo is None:
        undo = Refinement.objects.create(
            refinement_id=new_id("ref"),
            plan=original.plan,
            rollback_of=original,
            status=RefinementStatus.QUEUED,
            actor=principal.key,
            edits=reverse,
            error=error,
            ts=time.time(),
        )
        history_record(
            "queue",
            principal.key,
            project=principal.project,
            plan_id=original.plan.plan_id if original.plan else "",
            refinement_id=undo.refinement_id,
            message=f"rollback of {original.refinement_id} {error}",
            diff=reverse,
        )
    else:
        undo.edits, undo.error = reverse, error
        undo.save(update_fields=["edits", "error"])
    return RolledBack(
        refinement_id=original.refinement_id,
        rolled_back=False,
        error=error,
        rollback_refinement_id=undo.refinement_id,
    )
