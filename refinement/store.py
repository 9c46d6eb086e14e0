"""Reading and compare-and-swap writing of every path a refinement may change."""

from __future__ import annotations

import time
from typing import Any

from django.db.models import F

from refinement.models import Refinement, Revision, Step, StoreValue
from refinement.paths import UNWEIGHTED, WEIGHT_PREFIX, Location, Target

STEP_DEFAULTS: dict[str, Any] = {
    "learnings_access": "read",
    "learning_objective": "",
    "lock_learnings": False,
}


def read(location: Location, *, lock: bool = False) -> Any:
    """The current value at a location (a weight never set reads as 0.5, a missing file as null)."""
    if location.target is Target.STEP_CONFIG:
        if lock:
            # Make the row exist so that there is something to lock, even for a first write.
            Step.objects.get_or_create(step_id=location.step_id)
        steps = Step.objects.select_for_update() if lock else Step.objects
        step = steps.filter(step_id=location.step_id).first()
        return getattr(step, location.field) if step else STEP_DEFAULTS[location.field]
    if lock:
        StoreValue.objects.get_or_create(path=location.path)
    values = StoreValue.objects.select_for_update() if lock else StoreValue.objects
    row = values.filter(path=location.path).first()
    if row is None or row.value is None:
        return UNWEIGHTED if location.target is Target.ROUTER_WEIGHT else None
    return row.value


def write(location: Location, value: Any, *, actor: str, refinement: Refinement) -> None:
    """Write a value the caller has compared under lock; keep the revision."""
    now = time.time()
    before = read(location)
    if location.target is Target.STEP_CONFIG:
        step, _ = Step.objects.get_or_create(step_id=location.step_id)
        setattr(step, location.field, value)
        step.updated = now
        step.save(update_fields=[location.field, "updated"])
        version = Revision.objects.filter(path=location.path).count() + 1
    else:
        row, _ = StoreValue.objects.get_or_create(path=location.path)
        StoreValue.objects.filter(pk=row.pk).update(
            value=value, version=F("version") + 1, updated=now, updated_by=actor
        )
        version = row.version + 1
    Revision.objects.create(
        path=location.path,
        version=version,
        before=before,
        after=value,
        actor=actor,
        refinement=refinement,
        ts=now,
    )


def routing_weights() -> dict[str, float]:
    rows = StoreValue.objects.filter(path__startswith=WEIGHT_PREFIX).filter(value__isnull=False)
    return {row.path.removeprefix(WEIGHT_PREFIX): float(row.value) for row in rows}


def routing_updated() -> float:
    row = StoreValue.objects.filter(path__startswith=WEIGHT_PREFIX).order_by("-updated").first()
    return row.updated if row else 0.0


def skill_files() -> list[StoreValue]:
    return list(
        StoreValue.objects.filter(path__startswith="learnings/")
        .filter(value__isnull=False)
        .order_by("path")
    )
