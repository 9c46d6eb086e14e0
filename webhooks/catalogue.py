"""The events an endpoint may subscribe to, and the dashboard broadcast each one rides on."""

from __future__ import annotations

from typing import Literal, get_args

# The webhook event of each broadcast (core.events): the history's kinds are the
# refinement app's words, the webhook names are the integrator's.
FROM_BROADCAST = {
    "feedback.recorded": "feedback.recorded",
    "refinement.plan": "plan.filed",
    "refinement.approve": "proposal.approved",
    "refinement.reject": "proposal.rejected",
    "refinement.apply": "refinement.applied",
    "refinement.rollback": "refinement.rolled_back",
    "rating.reviewed": "rating.reviewed",
    "annotator.paused": "annotator.paused",
    "intake.admitted": "intake.admitted",
}
EVENTS = tuple(FROM_BROADCAST.values())

# The same names as a type, for the bodies and answers of /api/webhooks/ and their schema.
Event = Literal[
    "feedback.recorded",
    "plan.filed",
    "proposal.approved",
    "proposal.rejected",
    "refinement.applied",
    "refinement.rolled_back",
    "rating.reviewed",
    "annotator.paused",
    "intake.admitted",
]
assert set(get_args(Event)) == set(EVENTS)  # one list of events
