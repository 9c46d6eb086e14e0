"""Read-only queries over turns and feedback, shared by the API and the portal."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, QuerySet

from feedback.models import Feedback, Turn


def turn_queue(*, component_name: str = "", session_id: str = "") -> QuerySet[Turn]:
    """The annotators' queue, each turn annotated `rated`: unrated first, then newest first."""
    rated = Feedback.objects.filter(correlation_id=OuterRef("correlation_id"))
    turns = Turn.objects.annotate(rated=Exists(rated))
    if component_name:
        turns = turns.filter(component_name=component_name)
    if session_id:
        turns = turns.filter(session_id=session_id)
    return turns.order_by("rated", "-created", "-id")


def unrated_turn_count() -> int:
    return turn_queue().filter(rated=False).count()
