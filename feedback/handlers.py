"""`learn/*` handlers for feedback, experiences and stats: thin calls into the services."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.accounts.roles import Action
from core.projects.selection import project_pk
from core.timing import stage
from feedback.selectors.components import component_records
from feedback.services.experiences import RoutingPolicy, experience_store
from feedback.services.feedbacks import feedback_record
from learnportal_protocol.errors import not_found

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from learnportal_protocol.messages import (
        LearnExperienceRequest,
        LearnFeedbackRequest,
        LearnStatsRequest,
    )


def handle_feedback(principal: Principal, request: LearnFeedbackRequest) -> dict[str, Any]:
    outcome = feedback_record(principal=principal, feedbacks=request.feedbacks)
    return {"recorded": outcome.recorded, "new_score": outcome.new_score}


def handle_experience(
    principal: Principal, request: LearnExperienceRequest, *, policy: RoutingPolicy
) -> dict[str, Any]:
    """`policy` is the routing the experiences were chosen under: the wiring passes refinement's
    (`refinement.store.behaviour_policy`), as feedback never imports refinement."""
    stored = experience_store(
        principal=principal,
        experiences=request.experiences,
        policy=policy,
    )
    return {"stored": stored}


def handle_stats(principal: Principal, request: LearnStatsRequest) -> dict[str, Any]:
    principal.require(Action.STATS)
    with stage("stats query: `component_records`"):
        records = component_records(project_pk(principal.project), request.component_name)
    if request.component_name and not records:
        raise not_found(f"No component named {request.component_name!r} has any data yet.")
    return {"components": records}
