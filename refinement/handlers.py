"""`learn/*` handlers for adapt and the refinement lifecycle: thin calls into the services."""

from __future__ import annotations

from typing import Any

from learnportal.accounts.principals import Principal
from learnportal.accounts.roles import Action
from learnportal.protocol.messages import (
    LearnAdaptRequest,
    LearnRefinementApplyRequest,
    LearnRefinementHistoryRequest,
    LearnRefinementPlanRequest,
    LearnRefinementReviewRequest,
    LearnRefinementRollbackRequest,
)
from refinement.adapt import adapt_run
from refinement.history import history_entries
from refinement.planner import plan_create
from refinement.services import (
    proposal_apply,
    proposal_review,
    proposal_wire,
    refinement_rollback,
    review_reasons,
)


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
    outcome = proposal_apply(principal=principal, raw=request.proposal)
    return {
        "refinement_id": outcome.refinement_id,
        "applied_edits": outcome.applied_edits,
        "failed_edits": outcome.failed_edits,
        "rollback_available": outcome.rollback_available,
        "error": outcome.error,
    }


def handle_rollback(
    principal: Principal, request: LearnRefinementRollbackRequest
) -> dict[str, Any]:
    outcome = refinement_rollback(principal=principal, refinement_id=request.refinement_id)
    return {
        "refinement_id": outcome.refinement_id,
        "rolled_back": outcome.rolled_back,
        "error": outcome.error,
    }


def handle_history(principal: Principal, request: LearnRefinementHistoryRequest) -> dict[str, Any]:
    principal.require(Action.HISTORY)
    return {"entries": history_entries()}
