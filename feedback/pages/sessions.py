"""A session page: the turns of one conversation in the order they came, as a transcript, each
with its steps counted and its way to the rating page (docs/contract.md, "Traces")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import Http404

from core.accounts.roles import Action
from core.web import page, requires
from feedback.selectors.turns import rated_for, session_turns, turn_ratings
from feedback.selectors.visibility import still_blind
from feedback.sessions import SESSION_STEP
from learnportal_protocol.models import NAME_LENGTH

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal

SESSION_TURNS_SHOWN = 200
SESSION_PARAMETER = "id"
# The queue's mode that hands out whole sessions: `?sessions=1` (feedback.pages.queue).
SESSIONS_PARAMETER, SESSIONS_ON = "sessions", "1"


@requires(Action.READ_TURNS)
def session_detail(request: HttpRequest, principal: Principal) -> HttpResponse:
    """`?id=<session id>`: the project's turns of the session, first first; a session with
    none is not found (in another project's too). A query, not a path: a session id is any
    text, and a path's `..` would be another page to the browser."""
    session_id = request.GET.get(SESSION_PARAMETER, "")
    if not session_id or len(session_id) > NAME_LENGTH:
        raise Http404("No such session.")
    context = session_transcript(principal, session_id)
    if not context["session_turns"]:
        raise Http404("No such session.")
    opener = context["session_turns"][0]
    ratings = [r for r in turn_ratings(opener, viewer=principal) if r.step_id == SESSION_STEP]
    context |= {
        "session_id": session_id,
        "can_queue": principal.may(Action.QUEUE),
        "ratings": [(rating, "") for rating in ratings],
        "blind": still_blind(ratings, principal),
    }
    return page(request, "feedback/session.html", context)


def session_transcript(principal: Principal, session_id: str) -> dict[str, Any]:
    """What templates/feedback/partials/session_view.html shows of a session of the
    principal's project: its turns, first first, at most SESSION_TURNS_SHOWN (`session_more`:
    there are more), and which of them this person sees as rated."""
    turns, more = session_turns(principal.project, session_id, SESSION_TURNS_SHOWN)
    return {
        "session_turns": turns,
        "session_more": more,
        "session_shown": SESSION_TURNS_SHOWN,
        "session_rated": rated_for(turns, principal),
        "can_rate": principal.may(Action.FEEDBACK),
    }
