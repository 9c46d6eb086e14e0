"""The people's side: log in and see how the agents are doing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.decorators import login_required

from feedback.selectors import component_records, feedback_count, unrated_turn_count
from learnportal.accounts.principals import principal_for_user
from learnportal.accounts.roles import Action
from learnportal.web import page
from refinement.history import history_entries
from refinement.paths import UNWEIGHTED
from refinement.selectors import open_proposal_count
from refinement.store import routing_weights

if TYPE_CHECKING:
    from django.http import HttpResponse

    from learnportal.web import AuthenticatedHttpRequest


@login_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    weights = routing_weights()
    components = [
        {
            **record,
            "weight": weights.get(record["component_name"], UNWEIGHTED),
            "success_rate": 100 * record["calls_success"] / record["calls_total"]
            if record["calls_total"]
            else 0,
        }
        for record in component_records()
    ]
    principal = principal_for_user(request.user)
    unrated, more = unrated_turn_count()
    context = {
        "components": components,
        "turns_unrated": unrated,
        "turns_unrated_more": more,
        "feedback_count": feedback_count(),
        "pending_proposals": open_proposal_count(),
        "history": history_entries(limit=12) if principal.may(Action.HISTORY) else None,
    }
    return page(request, "learnportal/home.html", context)
