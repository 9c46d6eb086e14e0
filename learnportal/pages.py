"""The people's side: log in and see how the agents are doing."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
from django.contrib.auth.decorators import login_required

from core.accounts.roles import Action
from core.projects.selection import project_pk
from core.web import page, portal_principal
from feedback.selectors.components import component_figures, component_records
from feedback.selectors.overview import live_counts
from feedback.source_scores import SOURCE_LABELS, source_asked, source_links, source_scores
from refinement.history import history_entries
from refinement.paths import UNWEIGHTED
from refinement.selectors import awaiting_review_count
from refinement.store import routing_weights

if TYPE_CHECKING:
    from django.http import HttpResponse

    from core.web import AuthenticatedHttpRequest

# What the empty overview shows an agent's developer: one turn for the annotators' queue.
FIRST_TURN = {
    "turns": [
        {
            "correlation_id": "turn-1",
            "session_id": "session-1",
            "component_name": "web_search",
            "rated_turn": {
                "prompt": "What is the capital of France?",
                "response": "Paris.",
                "model": "my-agent-v1",
            },
        }
    ]
}


@login_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    principal = portal_principal(request)
    assert principal is not None  # behind login_required
    project = project_pk(principal.project)
    weights = routing_weights(project)
    source, problems = source_asked(request.GET)
    scores = source_scores(project, source)
    components = [
        {
            **record,
            "weight": weights.get(record["component_name"], UNWEIGHTED),
            "figures": component_figures(record),
            "score": scores[record["component_name"]],
        }
        for record in component_records(project)
    ]
    counts = live_counts(project)  # what the counters show, as the live updates will say it
    context = {
        **counts,
        "components": components,
        "pending_proposals": (
            awaiting_review_count(project) if principal.may(Action.DECIDE) else None
        ),
        "history": history_entries(project, limit=12) if principal.may(Action.HISTORY) else None,
        "empty": not components and not any(counts.values()),
        "first_turn": orjson.dumps(FIRST_TURN).decode(),
        "source_label": SOURCE_LABELS[source],
        "source_links": source_links(source, request.GET),
        "problems": problems,
    }
    return page(request, "learnportal/home.html", context, status=400 if problems else 200)
