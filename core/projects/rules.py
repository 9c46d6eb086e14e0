"""A project's queue rules as they hold now: its own setting, else the portal's.

Read from the project's row each time rather than cached: a manager's change then counts from
the next request in every process, for one small query by primary key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.dispatch import Signal

from core.projects.models import Project

if TYPE_CHECKING:
    from collections.abc import Iterable

# Sent (project_id=...) inside the transaction that changed how many ratings a project's turns
# need, so that the app that keeps the turns' queue fields recounts them (feedback.apps).
ratings_per_turn_changed = Signal()


def lease_seconds(project_id: int | None) -> int:
    """How long a lease on one of the project's turns lasts (LEARNPORTAL_LEASE_SECONDS unless
    the project sets its own; a row not yet saved has no project of its own)."""
    own = (
        None
        if project_id is None
        else Project.objects.filter(pk=project_id).values_list("lease_seconds", flat=True).first()
    )
    return int(own or settings.LEARNPORTAL_LEASE_SECONDS)


def ratings_per_turn(project_id: int) -> int:
    """How many distinct people's ratings each of the project's turns needs."""
    return ratings_per_turn_of([project_id])[project_id]


def ratings_per_turn_of(project_ids: Iterable[int]) -> dict[int, int]:
    """`ratings_per_turn` of each of these projects, in one query."""
    wanted = set(project_ids)
    portal = int(settings.LEARNPORTAL_RATINGS_PER_TURN)
    own = dict(
        Project.objects.filter(pk__in=wanted, ratings_per_turn__isnull=False).values_list(
            "pk", "ratings_per_turn"
        )
    )
    return {pk: int(own.get(pk) or portal) for pk in wanted}


def is_blind(slug: str) -> bool:
    """Whether the project keeps its annotators from other people's judgements of a turn until
    they have rated it."""
    blind = Project.objects.filter(slug=slug).values_list("blind", flat=True).first()
    return True if blind is None else bool(blind)
