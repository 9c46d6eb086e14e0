"""The refinement lifecycle: review → apply (or queue for a person) → rollback, and decisions.

Every state change happens in one transaction, with a compare-and-swap on each path
(`select_for_update` rows on PostgreSQL; SQLite's immediate transactions serialize writers).
Every change of a path, by one apply, by adapt or by a rollback, goes through `edits_apply`.

Every path that writes (apply, approve, reject, rollback, adapt) takes its locks in one order,
so that two writers of the same rows queue behind each other and never deadlock:
1. proposal rows, by id: a proposal's row guards its reviews and refinements;
2. the refinement being rolled back;
3. store rows in path order, then step rows, in one call (`store.read_many(..., lock=True)`);
4. plan rows, last (`plan_settle`).
Proposal and refinement rows are locked "for no key update", so that inserting a review or a
revision that merely points at one never waits.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from pydantic import ValidationError

from core.accounts.roles import Action, Role
from feedback.selectors import owners_of, speaks_for_all
from learnportal_protocol.errors import LearnError, conflict, detail, forbidden, invalid, not_found
from learnportal_protocol.messages import Applied
from refinement import store
from refinement.answers import ProposalWire, RolledBack
from refinement.change_text import change_text
from refinement.history import history_record
from refinement.models import (
    APPLIED_PROPOSAL,
    OPEN_PROPOSAL,
    Plan,
    Proposal,
    ProposalStatus,
    Refinement,
    RefinementStatus,
    Review,
)
from refinement.paths import Location, Target
from refinement.permissions import (
    Permission,
    Verb,
    approvals_needed,
    approvers,
    by_person,
    may,
)
from refinement.proposal_ids import own, reachable_plan, resendable, stored_proposal
from refinement.proposals import ProposalInput, parse_proposal
from refinement.review import Assessment, assess, assess_all, describe, same_value
from refinement.trust_window import machine_wait
from refinement.vocabulary import PlanStatus, ReviewKind, RiskLevel

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from django.db.models import QuerySet

    from core.accounts.principals import Principal


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


_Row = TypeVar("_Row", bound=models.Model)


def locked(rows: QuerySet[_Row]) -> QuerySet[_Row]:
    """Rows locked until the transaction ends (PostgreSQL; SQLite serializes writers anyway)."""
    return rows.select_for_update(of=("self",), no_key=True)


@dataclass(frozen=True)
class Edit:
    """One change of one path: from the value it expects to find there (`before`) to `after`."""

    location: Location
    before: Any
    after: Any

    @property
    def path(self) -> str:
        return self.location.path


STALE = "Changed since it was read; nothing was applied."


def edits_apply(
    principal: Principal,
    plan: Plan | None,
    edits: Sequence[Edit],
    *,
    message: str,
    refinement: Refinement | None = None,
    proposal: Proposal | None = None,
    rollback_of: Refinement | None = None,
    current: Mapping[str, Any] | None = None,
    stale: str = STALE,
    stale_loc: tuple[str, ...] = ("proposal", "old_value"),
) -> Refinement:
    """Apply edits as one refinement: the one write path of apply (1 edit), adapt (up to a
    thousand) and rollback, in a handful of statements however many edits there are.

    Compare-and-swap: every path must still hold its edit's `before`, else `conflict` (`stale`)
    and nothing is written. `current` is what the caller's review read of these paths under
    lock in this transaction (`assess_all(..., lock=True)`); without it, they are locked and read
    here. Then, once each: the refinement (`refinement`, a queued one this completes, or a new
    one) with the before-snapshot as its edits, a revision per path, and one history entry,
    broadcast after commit (`rollback` when it undoes `rollback_of`, else `apply`).

    The caller holds the locks that come earlier in the one order (the proposal row, the
    refinement rolled back) and settles plans after (`plan_settle`).
    """
    if current is None:
        current = store.read_many([edit.location for edit in edits], lock=True)
    changed = [
        detail(
            list(stale_loc),
            f"{edit.path}: expected {describe(edit.before)}, found {describe(current[edit.path])}",
        )
        for edit in edits
        if not same_value(current[edit.path], edit.before)
    ]
    if changed:
        raise conflict(stale, changed)
    snapshot = [
        {
            "path": edit.path,
            "target": edit.location.target.value,
            "before": current[edit.path],
            "after": edit.after,
        }
        for edit in edits
    ]
    refinement = refinement or Refinement(refinement_id=new_id("ref"))
    refinement.plan, refinement.proposal, refinement.rollback_of = plan, proposal, rollback_of
    refinement.status, refinement.actor = RefinementStatus.APPLIED, principal.key
    refinement.edits, refinement.error, refinement.ts = snapshot, "", time.time()
    refinement.save()
    store.write_many(
        [(edit.location, edit.after) for edit in edits], actor=principal.key, refinement=refinement
    )
    history_record(
        "rollback" if rollback_of else "apply",
        principal.key,
        plan_id=plan.plan_id if plan else "",
        proposal=proposal,
        refinement_id=refinement.refinement_id,
        message=message,
        diff=snapshot,
    )
    return refinement


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
        review_record(record, assess(proposal), principal.key, ReviewKind.AUTO)
        records.append(record)
    history_record(
        "plan",
        principal.key,
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


def review_record(
    record: Proposal, assessment: Assessment, reviewer: str, kind: ReviewKind, note: str = ""
) -> Review:
    record.risk_level = assessment.risk_level
    record.save(update_fields=["risk_level"])
    return Review.objects.create(
        proposal=record,
        kind=kind,
        approved=assessment.approved if kind != ReviewKind.REJECT else False,
        risk_level=assessment.risk_level,
        reasons=assessment.reasons
        + assessment.blocking
        + ([assessment.conflict] if assessment.conflict else []),
        confidence_adjusted=assessment.confidence_adjusted,
        reviewer=reviewer,
        proposal_hash=record.content_hash,
        note=note,
        ts=time.time(),
    )


def review_reasons(assessment: Assessment) -> list[str]:
    reasons = list(assessment.blocking)
    if assessment.conflict:
        reasons.insert(0, f"old_value is stale: {assessment.conflict}")
    reasons.extend(assessment.reasons)
    if assessment.needs_human:
        reasons.append("needs a reviewer's approval before it applies")
    return reasons


def proposal_review(*, principal: Principal, raw: dict[str, Any]) -> tuple[Proposal, Assessment]:
    principal.require(Action.REVIEW)
    proposal = parse_proposal(raw)
    with transaction.atomic():
        record = proposal_register(principal, proposal)
        assessment = assess(proposal)
        review_record(record, assessment, principal.key, ReviewKind.AUTO)
        history_record(
            "review",
            principal.key,
            plan_id=record.plan.plan_id if record.plan else "",
            proposal=record,
            message=f"risk {assessment.risk_level}; "
            + ("approved" if assessment.approved else "not approved")
            + (": " + "; ".join(review_reasons(assessment)) if review_reasons(assessment) else ""),
        )
    return record, assessment


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

    The caller holds the proposal's row lock (`proposal_register` or `_stored`).
    """
    assessment = assess(proposal, lock=True)
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
    owner = owners_of([component]).get(component)
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
        record = _stored(proposal_id, requested_by, plan_id)
        return _apply_record(principal, parse_proposal(proposal_wire(record)), record)


def _stored(proposal_id: str, requested_by: str, plan_id: str) -> Proposal:
    """A proposal a person names (`proposal_ids.stored_proposal`), its row locked."""
    rows = locked(Proposal.objects.select_related("plan"))
    return stored_proposal(rows, proposal_id, requested_by=requested_by, plan_id=plan_id)


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
        record = _stored(proposal_id, requested_by, plan_id)
        assessment = assess(parse_proposal(proposal_wire(record)))
        may(principal, Verb.APPROVE, record, [assessment]).require()
        review = review_record(record, assessment, principal.key, ReviewKind.APPROVE, note=note)
        record.status = (
            ProposalStatus.APPROVED if record.status != ProposalStatus.QUEUED else record.status
        )
        record.save(update_fields=["status"])
        history_record(
            "approve",
            principal.key,
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
        record = _stored(proposal_id, requested_by, plan_id)
        assessment = assess(parse_proposal(proposal_wire(record)))
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
            plan_id=record.plan.plan_id if record.plan else "",
            proposal=record,
            message=reason,
        )
    return review


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
    assessments = assess_all(proposals, lock=lock)
    may(principal, Verb.ROLLBACK, original, assessments).require()  # and what it would write
    return reverse, proposals, assessments


def rollback_permission(*, principal: Principal, refinement: Refinement) -> Permission:
    """Whether this person may roll `refinement` back now (for a page; nothing is locked)."""
    try:
        _rollback_review(principal, refinement, lock=False)
    except LearnError as error:
        return Permission(False, error.code, error.message, error.details)
    return Permission(True)


def proposal_permissions(
    *, principal: Principal, records: Sequence[Proposal]
) -> dict[str, tuple[Assessment, dict[Verb, Permission]]]:
    """Each proposal's review now and what this person may do with it, by id (for a page)."""
    assessments = assess_all([parse_proposal(proposal_wire(r)) for r in records])
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
