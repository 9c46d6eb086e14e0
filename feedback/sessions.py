"""A session (the turns of one conversation, by their `session_id`) as a unit people rate whole.

A session is rated through the turn that begins it, its project's first turn of that session
by arrival: a feedback, rating, lease or skip of the session is one of that turn with the step
id SESSION_STEP, which no step may have (feedback.traces.steps). So the rules of a unit
(feedback.raters: ratings from distinct people, leases, blind) hold for a session as for a
turn or a step, through the same rows, and nothing that reads a whole turn's ratings (step
id "") counts a session's.

A session rating rates no one response: it carries no rated turn and no correction, so the
exports of pairs and rewards leave it out; the `answers` export and the explorer keep it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef

from core.projects.selection import project_pk
from feedback.models import Turn
from feedback.traces.steps import SESSION_STEP
from learnportal_protocol.errors import cut, detail, not_found

if TYPE_CHECKING:
    from django.db.models import QuerySet

__all__ = [
    "SESSION_STEP",
    "opens_session",
    "session_opened",
    "session_opener",
    "session_openers",
    "session_size",
]


def session_openers(project: int) -> QuerySet[Turn]:
    """The turns of `project` that begin a session: those with a session id and no earlier
    turn of it (one probe of the index (session_id, id) each)."""
    earlier = Turn.objects.filter(
        project_id=project, session_id=OuterRef("session_id"), pk__lt=OuterRef("pk")
    )
    return Turn.objects.filter(project_id=project).exclude(session_id="").exclude(Exists(earlier))


def session_opener(project: int, session_id: str) -> Turn | None:
    """The turn that begins the session `session_id` of `project`, or None if it has none."""
    if not session_id:
        return None
    return Turn.objects.filter(project_id=project, session_id=session_id).order_by("pk").first()


def opens_session(turn_ids: list[int]) -> set[int]:
    """Those of `turn_ids` that begin their session."""
    if not turn_ids:
        return set()
    earlier = Turn.objects.filter(
        project_id=OuterRef("project_id"), session_id=OuterRef("session_id"), pk__lt=OuterRef("pk")
    )
    found = (
        Turn.objects.filter(pk__in=turn_ids)
        .exclude(session_id="")
        .exclude(Exists(earlier))
        .values_list("pk", flat=True)
    )
    return set(found)


def session_size(turn: Turn) -> int:
    """How many turns the session of `turn` has in its project."""
    return Turn.objects.filter(project=turn.project_id, session_id=turn.session_id).count()


def session_opened(project: str, session_id: str) -> int:
    """The id of the turn that begins the session `session_id` of `project` (a project's slug),
    or `not_found` naming `session_id`."""
    opener = session_opener(project_pk(project), session_id)
    if opener is None:
        said = f"{cut(session_id, 80)!r} is no session of this project"
        raise not_found(f"session_id: {said}", [detail(["session_id"], said)])
    return opener.pk
