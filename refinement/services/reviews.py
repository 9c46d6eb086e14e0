"""Recording a review of a proposal (the automatic one, or a person's), and answering a review
request (learn/refinement/review), which applies nothing.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from django.db import transaction

from core.accounts.roles import Action
from core.projects.selection import project_pk
from refinement.history import history_record
from refinement.models import Proposal, Review
from refinement.proposals import parse_proposal
from refinement.review import Assessment, assess
from refinement.services.register import proposal_register
from refinement.vocabulary import ReviewKind

if TYPE_CHECKING:
    from core.accounts.principals import Principal


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
        assessment = assess(proposal, project=project_pk(principal.project))
        review_record(record, assessment, principal.key, ReviewKind.AUTO)
        history_record(
            "review",
            principal.key,
            project=principal.project,
            plan_id=record.plan.plan_id if record.plan else "",
            proposal=record,
            message=f"risk {assessment.risk_level}; "
            + ("approved" if assessment.approved else "not approved")
            + (": " + "; ".join(review_reasons(assessment)) if review_reasons(assessment) else ""),
        )
    return record, assessment
