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


def next_unrated_turn(*, after: Turn) -> Turn | None:
    """The turn to rate next: the queue's first unrated one other than `after`."""
    return turn_queue().filter(rated=False).exclude(pk=after.pk).first()


def queue_filters() -> dict[str, list[str]]:
    def distinct(field: str) -> list[str]:
        return list(
            Turn.objects.exclude(**{field: ""})
            .order_by(field)
            .values_list(field, flat=True)
            .distinct()
        )

    return {"components": distinct("component_name"), "sessions": distinct("session_id")}


def turn_ratings(turn: Turn) -> list[Feedback]:
    return list(Feedback.objects.filter(correlation_id=turn.correlation_id).order_by("-ts", "-id"))


def feedback_count() -> int:
    return Feedback.objects.count()
