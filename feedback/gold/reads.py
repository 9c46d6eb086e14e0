"""What the gold items say of people (`GET /api/gold/people/`): each person's accuracy on them
(known answers matched, of those compared, with its 95% Wilson interval) and whether their
queue is paused; and the gold items themselves (`GET /api/gold/`), newest first."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Count, Sum

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.gold.models import GoldItem, GoldResult, QueuePause
from feedback.intervals import wilson
from learnportal_protocol.errors import conflict, detail

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from core.accounts.principals import Principal

NOT_PAUSED = "this person's queue is not paused"


@dataclass(frozen=True)
class PersonAccuracy:
    annotator: str
    items: int  # gold items rated
    compared: int  # known answers their ratings were compared on
    matched: int
    interval: tuple[float, float] | None
    paused: QueuePause | None

    @property
    def accuracy(self) -> float | None:
        return self.matched / self.compared if self.compared else None


def gold_people(principal: Principal) -> list[PersonAccuracy]:
    """Everyone who rated a gold item of the project, or is paused by them, by name."""
    principal.require(Action.MANAGE_GOLD)
    project = project_pk(principal.project)
    found = gold_totals(GoldResult.objects.filter(project_id=project))
    pauses = {
        pause.username: pause
        for pause in QueuePause.objects.filter(project_id=project, resumed__isnull=True)
    }
    return [
        person_accuracy(name, *found.get(name, (0, 0, 0)), pauses.get(name))
        for name in sorted(found.keys() | pauses.keys())
    ]


def gold_totals(results: QuerySet[GoldResult]) -> dict[str, tuple[int, int, int]]:
    """Of these results, each person's gold items rated, known answers compared and matched."""
    totals = (
        results.values("annotator")
        .annotate(items=Count("id"), compared=Sum("compared"), matched=Sum("matched"))
        .order_by()
    )
    return {
        row["annotator"]: (row["items"], int(row["compared"] or 0), int(row["matched"] or 0))
        for row in totals
    }


def person_accuracy(
    name: str, items: int, compared: int, matched: int, paused: QueuePause | None = None
) -> PersonAccuracy:
    """A person's accuracy on the gold items they rated, with its interval: read once, for
    this list and for what each person's work comes to (feedback.insight)."""
    interval = wilson(matched, compared) if compared else None
    return PersonAccuracy(name, items, compared, matched, interval, paused)


def gold_resume(principal: Principal, username: str, *, now: float | None = None) -> None:
    """Resume this person's paused queue: only gold items they rate from now on judge them
    again. `conflict` naming `username` when it is not paused."""
    principal.require(Action.MANAGE_GOLD)
    with transaction.atomic():
        resumed = QueuePause.objects.filter(
            project_id=project_pk(principal.project), username=username, resumed__isnull=True
        ).update(resumed=time.time() if now is None else now, resumed_by=principal.name)
    if not resumed:
        raise conflict(
            f"{username[:150]!r} is not paused in this project.",
            [detail(["username"], NOT_PAUSED)],
        )


def gold_items(principal: Principal, *, limit: int, cursor: int | None) -> list[GoldItem]:
    """A page of the project's gold items, newest first (`cursor`: the id to go on below),
    one more than `limit` when a next page follows."""
    principal.require(Action.MANAGE_GOLD)
    items = GoldItem.objects.filter(project_id=project_pk(principal.project)).select_related("turn")
    if cursor is not None:
        items = items.filter(id__lt=cursor)
    return list(items.annotate(rated=Count("results")).order_by("-id")[: limit + 1])
