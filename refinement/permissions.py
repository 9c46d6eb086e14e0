"""May this person approve, reject, apply or roll back this proposal or refinement, now?

The rules are written here once. The services ask before they write (and raise the answer's
refusal: `forbidden` or `conflict`, with the message a person reads), and the plan page asks
before it renders, so that a button this person may not use is disabled with the same reason
the server would give after the click.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from django.conf import settings

from core.accounts.roles import DECIDERS, Action, Role
from learnportal_protocol.errors import ErrorCode, LearnError, detail
from refinement.models import (
    APPLIED_PROPOSAL,
    Proposal,
    ProposalStatus,
    Refinement,
    RefinementStatus,
)
from refinement.vocabulary import ReviewKind, RiskLevel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.accounts.principals import Principal
    from refinement.review import Assessment


class Verb(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"
    APPLY = "apply"
    ROLLBACK = "rollback"


VERB_ACTION = {
    Verb.APPROVE: Action.DECIDE,
    Verb.REJECT: Action.DECIDE,
    Verb.APPLY: Action.APPLY,
    Verb.ROLLBACK: Action.ROLLBACK,
}


@dataclass(frozen=True)
class Permission:
    """Yes, or no with the refusal the server answers (its code, a sentence, the details)."""

    allowed: bool
    code: ErrorCode | None = None
    reason: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)

    def require(self) -> None:
        if not self.allowed and self.code is not None:
            raise LearnError(self.code, self.reason, self.details)


ALLOWED = Permission(True)


def _refuse(
    code: ErrorCode, reason: str, details: list[dict[str, Any]] | None = None
) -> Permission:
    return Permission(False, code, reason, details or [])


def by_person(principal: Principal) -> bool:
    """A reviewer's or admin's act is itself the human approval the risk gate asks for."""
    return principal.is_human and principal.role in DECIDERS


def approvable_risk(principal: Principal) -> RiskLevel:
    """The highest risk this person may approve or apply: an admin's is unlimited."""
    if principal.role is Role.ADMIN:
        return RiskLevel.HIGH
    return RiskLevel(settings.LEARNPORTAL_REVIEWER_MAX_RISK)


def may(
    principal: Principal,
    verb: Verb,
    subject: Proposal | Refinement,
    assessments: Sequence[Assessment],
) -> Permission:
    """Whether `principal` may `verb` `subject` now, and if not, why.

    `assessments` is the automatic review of what the act would write now: the proposal's one,
    or one per edit of a rollback (`refinement.services.rollback`).
    """
    action = VERB_ACTION[verb]
    if not principal.may(action):
        refusal = principal.refusal(action)
        return _refuse(refusal.code, refusal.message)
    if isinstance(subject, Refinement):
        return _rollback(principal, subject, assessments) if verb is Verb.ROLLBACK else ALLOWED
    if verb is Verb.REJECT:
        return _reject(subject)
    if verb is Verb.APPROVE:
        return _first_refusal(
            _four_eyes(principal, subject, applying=False),
            _status(subject),
            _unsafe(assessments),
            _risk(principal, assessments, "approve"),
            _second_reviewer(principal, subject, assessments, applying=False),
        )
    if verb is Verb.APPLY:
        person = by_person(principal)
        return _first_refusal(
            _status(subject),
            _unsafe(assessments),
            _four_eyes(principal, subject, applying=True) if person else ALLOWED,
            _risk(principal, assessments, "apply") if person else ALLOWED,
            _second_reviewer(principal, subject, assessments, applying=True) if person else ALLOWED,
        )
    return _refuse(
        ErrorCode.FORBIDDEN, f"A proposal cannot be {verb.value}ed; roll back its refinement."
    )


def _first_refusal(*answers: Permission) -> Permission:
    return next((answer for answer in answers if not answer.allowed), ALLOWED)


def _four_eyes(principal: Principal, record: Proposal, *, applying: bool) -> Permission:
    """Nobody approves what they requested: a plan, or a lone proposal they sent for review.

    Applying one's own lone edit is allowed: a person's apply is itself the approval.
    """
    if record.plan is not None:
        if record.plan.requested_by == principal.key:
            return _refuse(
                ErrorCode.FORBIDDEN,
                f"You requested {record.plan.plan_id}; another reviewer must approve it.",
            )
    elif not applying and record.requested_by == principal.key:
        return _refuse(
            ErrorCode.FORBIDDEN,
            f"You sent {record.proposal_id} for review; another reviewer must approve it.",
        )
    return ALLOWED


def approvals_needed(assessments: Sequence[Assessment]) -> int:
    """How many distinct people must approve before these edits apply: two at high risk when
    LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS is on, else one."""
    level = max((a.risk_level for a in assessments), default=RiskLevel.NONE)
    return 2 if settings.LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS and level >= RiskLevel.HIGH else 1


def approvers(record: Proposal) -> set[str]:
    """The distinct people whose approval stands for the proposal's current content."""
    return set(
        record.reviews.filter(
            kind=ReviewKind.APPROVE, proposal_hash=record.content_hash
        ).values_list("reviewer", flat=True)
    )


TWO_REVIEWERS = "high risk needs two reviewers (LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS)"


def _second_reviewer(
    principal: Principal, record: Proposal, assessments: Sequence[Assessment], *, applying: bool
) -> Permission:
    """At high risk with the rule on, one person approves and another approves or applies."""
    if approvals_needed(assessments) < 2:
        return ALLOWED
    others = approvers(record) - {principal.key}
    if principal.key in approvers(record) and not others:
        return _refuse(
            ErrorCode.FORBIDDEN,
            f"You approved {record.proposal_id}; {TWO_REVIEWERS}: another reviewer must approve "
            "or apply it.",
        )
    if applying and not others:
        return _refuse(
            ErrorCode.FORBIDDEN,
            f"Approve {record.proposal_id} first: {TWO_REVIEWERS}, and another reviewer then "
            "approves or applies it.",
        )
    return ALLOWED


def _status(record: Proposal) -> Permission:
    if record.status in APPLIED_PROPOSAL:
        return _refuse(
            ErrorCode.CONFLICT, f"Proposal {record.proposal_id} is {record.status} already."
        )
    if record.status == ProposalStatus.REJECTED:
        return _refuse(
            ErrorCode.CONFLICT,
            f"Proposal {record.proposal_id} was rejected; send the change again as a new proposal.",
        )
    return ALLOWED


def _reject(record: Proposal) -> Permission:
    if record.status in APPLIED_PROPOSAL:
        return _refuse(
            ErrorCode.CONFLICT,
            f"Proposal {record.proposal_id} is {record.status} already; roll it back instead.",
        )
    if record.status == ProposalStatus.REJECTED:
        return _refuse(ErrorCode.CONFLICT, f"Proposal {record.proposal_id} is rejected already.")
    return ALLOWED


def _unsafe(assessments: Sequence[Assessment]) -> Permission:
    """A stale `old_value` is a conflict; a locked or not read-write step refuses everyone."""
    for assessment in assessments:
        if assessment.conflict:
            return _refuse(
                ErrorCode.CONFLICT,
                f"The proposal is stale: {assessment.conflict}.",
                [detail(["proposal", "old_value"], assessment.conflict)],
            )
    blocking = [reason for a in assessments for reason in a.blocking]
    if blocking:
        return _refuse(
            ErrorCode.FORBIDDEN,
            "The proposal may not be applied: " + "; ".join(blocking) + ".",
            [detail(["proposal", "path"], reason) for reason in blocking],
        )
    return ALLOWED


def _risk(principal: Principal, assessments: Sequence[Assessment], verb: str) -> Permission:
    limit = approvable_risk(principal)
    level = max((a.risk_level for a in assessments), default=RiskLevel.NONE)
    if level > limit:
        return _refuse(
            ErrorCode.FORBIDDEN,
            f"Its risk is {level}, above the '{limit}' a {principal.role.value} may {verb} "
            "(LEARNPORTAL_REVIEWER_MAX_RISK); an admin must.",
        )
    return ALLOWED


def _rollback(
    principal: Principal, original: Refinement, assessments: Sequence[Assessment]
) -> Permission:
    person = by_person(principal)
    if not person and original.actor != principal.key:
        return _refuse(ErrorCode.FORBIDDEN, "An agent may roll back only what it applied itself.")
    if original.status == RefinementStatus.ROLLED_BACK:
        undo = Refinement.objects.filter(rollback_of=original).values_list(
            "refinement_id", flat=True
        )
        by = f" by {undo[0]}" if undo else ""
        return _refuse(ErrorCode.CONFLICT, f"{original.refinement_id} was rolled back already{by}.")
    if original.status != RefinementStatus.APPLIED:
        return _refuse(
            ErrorCode.CONFLICT,
            f"{original.refinement_id} is {original.status}; it was never applied.",
        )
    changed = {a.conflict_path: a.conflict for a in assessments if a.conflict}
    if changed:
        paths = ", ".join(list(changed)[:5]) + (
            f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        )
        return _refuse(
            ErrorCode.CONFLICT,
            f"Changed since {original.refinement_id} was applied: {paths}; "
            "roll back the later change first.",
            [detail(["refinement_id"], why) for why in changed.values()],
        )
    blocking = list(dict.fromkeys(reason for a in assessments for reason in a.blocking))
    if blocking:
        return _refuse(
            ErrorCode.FORBIDDEN,
            f"{original.refinement_id} may not be rolled back: " + "; ".join(blocking) + ".",
            [detail(["refinement_id"], reason) for reason in blocking],
        )
    return _risk(principal, assessments, "roll back") if person else ALLOWED
