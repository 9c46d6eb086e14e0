"""The events an endpoint may subscribe to, and the dashboard broadcast each one rides on."""

from __future__ import annotations

# The webhook event of each broadcast (core.events): the history's kinds are the
# refinement app's words, the webhook names are the integrator's.
FROM_BROADCAST = {
    "feedback.recorded": "feedback.recorded",
    "refinement.plan": "plan.filed",
    "refinement.approve": "proposal.approved",
    "refinement.reject": "proposal.rejected",
    "refinement.apply": "refinement.applied",
    "refinement.rollback": "refinement.rolled_back",
}
EVENTS = tuple(FROM_BROADCAST.values())
