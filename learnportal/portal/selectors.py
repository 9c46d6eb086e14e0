"""Read-only queries the portal's pages need and the services do not offer yet."""

from __future__ import annotations

from django.db.models import QuerySet

from feedback.models import Feedback, Turn
from feedback.selectors import turn_queue
from refinement.models import HistoryEntry, Refinement


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


def proposal_refinements(proposal_ids: list[str]) -> dict[str, Refinement]:
    """Each proposal's latest applied or rolled-back refinement, by proposal id."""
    found: dict[str, Refinement] = {}
    rows = (
        Refinement.objects.filter(
            proposal__proposal_id__in=proposal_ids, status__in=["applied", "rolled_back"]
        )
        .select_related("proposal")
        .order_by("ts", "id")
    )
    for refinement in rows:
        found[refinement.proposal.proposal_id] = refinement
    return found


def history_page_entries() -> QuerySet[HistoryEntry]:
    """The whole history, newest first, for a paginator (`history_entries` stops at a limit)."""
    return HistoryEntry.objects.order_by("-ts", "-id")
