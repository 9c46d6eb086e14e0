"""A session page: the turns of one conversation in the order they came, as a transcript, each
with its steps counted and its way to the rating page (docs/contract.md, "Traces")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import Http404

from core.accounts.roles import Action
from core.web import page, requires
from feedback.selectors.turns import rated_for, session_turns
from learnportal_protocol.models import NAME_LENGTH

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal

SESSION_TURNS_SHOWN = 200
SESSION_PARAMETER = "id"


@requires(Action.READ_TURNS)
def session_detail(request: HttpRequest, principal: Principal) -> HttpResponse:
    """`?id=<session id>`: the project's turns of the session, first first; a session with
    none is not found (in another project's too). A query, not a path: a session id is any
    text, and a path's `..` would be another page to the browser."""
    session_id = request.GET.get(SESSION_PARAMETER, "")
    if not session_id or len(session_id) > NAME_LENGTH:
        raise Http404("No such session.")
    turns, more = session_turns(principal.project, session_id, SESSION_TURNS_SHOWN)
    if not turns:
        raise Http404("No such session.")
    context = {
        "session_id": session_id,
        "turns": turns,
        "more": more,
        "shown": SESSION_TURNS_SHOWN,
        "rated": rated_for(turns, principal),
        "can_rate": principal.may(Action.FEEDBACK),
    }
    return page(request, "feedback/session.html", context)
