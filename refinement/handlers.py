"""`learn/*` handlers for adapt and the refinement lifecycle: thin calls into the services."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from learnportal_protocol.messages import (
    LearnAdaptRequest,
    LearnRefinementApplyRequest,
    LearnRefinementHistoryRequest,
    LearnRefinementPlanRequest,
    LearnRefinementReviewRequest,
    LearnRefinementRollbackRequest,
    Rollback,
)
from refinement.adapt import adapt_run
from refinement.history import history_read
from refinement.planner import plan_create
from refinement.services.apply import proposal_apply
from refinement.services.register import proposal_wire
from refinement.services.reviews import proposal_review, review_reasons
from refinement.services.rollback import refinement_rollback

if TYPE_CHECKING:
    from core.accounts.principals import Principal

ROLLBACK_FIELDS = set(Rollback.model_fields)  # the REST answer carries one field more


def handle_adapt(principal: Principal, request: LearnAdaptRequest) -> dict[str, Any]:
    outcome = adapt_run(
        principal=principal, component_name=request.component_name, strategy=request.strategy
    )
    return {"updated": outcome.updated, "message": outcome.message}


def handle_plan(principal: Principal, request: LearnRefinementPlanRequest) -> dict[str, Any]:
    plan, records = plan_create(
        principal=principal, component_name=request.component_name, scope=request.scope
    )
    return {
        "plan_id": plan.plan_id,
        "proposals": [proposal_wire(r) for r in records],
        "status": plan.status,
    }


def handle_review(principal: Principal, request: LearnRefinementReviewRequest) -> dict[str, Any]:
    _, assessment = proposal_review(principal=principal, raw=request.proposal)
    return {
        "approved": assessment.approved,
        "confidence_adjusted": assessment.confidence_adjusted,
        "reasons": review_reasons(assessment),
        "risk_level": assessment.risk_level,
    }


def handle_apply(principal: Principal, request: LearnRefinementApplyRequest) -> dict[str, Any]:
    return proposal_apply(principal=principal, raw=request.proposal).model_dump()


def handle_rollback(
    principal: Principal, request: LearnRefinementRollbackRequest
) -> dict[str, Any]:
    outcome = refinement_rollback(principal=principal, refinement_id=request.refinement_id)
    return outcome.model_dump(include=ROLLBACK_FIELDS)


def handle_history(principal: Principal, request: LearnRefinementHistoryRequest) -> dict[str, Any]:
    return history_read(
        principal=principal, limit=request.limit, cursor=request.cursor
    ).model_dump()
