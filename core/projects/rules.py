"""A project's queue rules as they hold now: its own setting, else the portal's.

Read from the project's row each time rather than cached: a manager's change then counts from
the next request in every process, for one small query by primary key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.dispatch import Signal

from core.projects.models import (
    DEFAULT_GOLD_MIN_ITEMS,
    DEFAULT_PRIORITY_NEGATIVE,
    DEFAULT_PRIORITY_UNSURE,
    Project,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

# Sent (project_id=...) inside the transaction that changed a project's `QueueRules`, so that
# the app that keeps the turns' queue fields works them out again (feedback.apps).
queue_rules_changed = Signal()


@dataclass(frozen=True)
class QueueRules:
    """What a project's queue asks of its turns: how many people rate each, and how far up
    the queue each signal on a turn moves it (feedback.queue_state)."""

    ratings_per_turn: int
    priority_negative: int
    priority_unsure: int


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
    return {pk: rules.ratings_per_turn for pk, rules in queue_rules_of(project_ids).items()}


def queue_rules_of(project_ids: Iterable[int]) -> dict[int, QueueRules]:
    """The `QueueRules` of each of these projects, in one query (one not stored: the
    portal's and the defaults)."""
    wanted = set(project_ids)
    portal = int(settings.LEARNPORTAL_RATINGS_PER_TURN)
    own = {
        pk: QueueRules(int(per_turn or portal), negative, unsure)
        for pk, per_turn, negative, unsure in Project.objects.filter(pk__in=wanted).values_list(
            "pk", "ratings_per_turn", "priority_negative", "priority_unsure"
        )
    }
    unstored = QueueRules(portal, DEFAULT_PRIORITY_NEGATIVE, DEFAULT_PRIORITY_UNSURE)
    return {pk: own.get(pk, unstored) for pk in wanted}


def is_blind(slug: str) -> bool:
    """Whether the project keeps its annotators from other people's judgements of a turn until
    they have rated it."""
    blind = Project.objects.filter(slug=slug).values_list("blind", flat=True).first()
    return True if blind is None else bool(blind)


def comparisons_as_evidence(project_id: int) -> bool:
    """Whether the project's judged comparisons count as routing evidence
    (feedback.comparisons.evidence)."""
    return Project.objects.filter(pk=project_id, comparisons_as_evidence=True).exists()


@dataclass(frozen=True)
class GoldRules:
    """How a project mixes gold items into its queue and judges people by them
    (feedback.gold)."""

    rate: float = 0.0
    min_items: int = DEFAULT_GOLD_MIN_ITEMS
    pause_below: float = 0.0


def gold_rules(project_id: int) -> GoldRules:
    row = (
        Project.objects.filter(pk=project_id)
        .values_list("gold_rate", "gold_min_items", "gold_pause_below")
        .first()
    )
    return GoldRules() if row is None else GoldRules(*row)


def compare_turns(project_id: int) -> bool:
    """Whether the project forms comparisons of its turns (feedback.comparisons.formed)."""
    return Project.objects.filter(pk=project_id, compare_turns=True).exists()


def judges_weighed(project_id: int) -> bool:
    """Whether the project weighs its machine feedback by each judge's agreement with people
    (feedback.judges.weights)."""
    return Project.objects.filter(pk=project_id, judges_weighed=True).exists()
