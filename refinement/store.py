"""Reading and compare-and-swap writing of every path a refinement may change, in one project:
each project has its own routing weights, learning store and steps."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson
from django.db import connection, models

from core.columns import Columns
from core.timing import staged
from refinement.models import Refinement, Revision, Step, StoreValue
from refinement.paths import UNWEIGHTED, WEIGHT_PREFIX, Location, Target

if TYPE_CHECKING:
    from collections.abc import Callable

VALUE = Columns(StoreValue)
# What a write sets of a store row, in the order of its UPDATE's parameters (then the id).
WRITTEN = VALUE("value", "version", "updated", "updated_by")
REVISION_COLUMNS = Columns(Revision)(
    "project", "path", "version", "before", "after", "actor", "refinement", "ts"
)

STEP_DEFAULTS: dict[str, Any] = {
    "learnings_access": "read",
    "learning_objective": "",
    "lock_learnings": False,
}


def read(location: Location, *, project: int, lock: bool = False) -> Any:
    """The current value at a location (a weight never set reads as 0.5, a missing file as null)."""
    return read_many([location], project=project, lock=lock)[location.path]


@staged("`store.read_many`")
def read_many(locations: list[Location], *, project: int, lock: bool = False) -> dict[str, Any]:
    """The current value at each location of the project, by path, in two queries at most.

    With `lock`, each row is locked for the rest of the transaction, created first where
    missing so that even a first write has something to lock. Every writer locks its paths in
    this one call and in one order (store rows by path, then step rows by step id), so two
    writers of the same paths queue behind each other and never wait in a cycle.
    """
    paths = sorted({loc.path for loc in locations if loc.target is not STEP})
    rows = _rows(project, paths, lock=lock)
    steps = _steps(
        project, sorted({loc.step_id for loc in locations if loc.target is STEP}), lock=lock
    )
    return {loc.path: _value(loc, rows, steps) for loc in locations}


@staged("`store.write_many` (values + revisions)")
def write_many(changes: list[tuple[Location, Any]], *, actor: str, refinement: Refinement) -> None:
    """Write values the caller has compared under lock, a revision each, in a few statements,
    in the refinement's project.

    Only `refinement.services.edits.edits_apply` calls this: every change is a refinement's. Through
    the cursor, from plain rows: for adapt's thousand weights, model instances and the ORM's
    bulk statements cost over a second (`git show 9ed4347:BENCHMARKS.md`, adapt).
    """
    now = time.time()
    project = refinement.project_id
    paths = sorted({loc.path for loc, _ in changes if loc.target is not STEP})
    rows = _rows(project, paths, lock=False)  # the caller's lock made and holds them
    if missing := [path for path in paths if path not in rows]:
        rows |= _rows(project, missing, lock=True)
    revisions: list[tuple[Any, ...]] = []
    updates: dict[str, Row] = {}
    for location, value in changes:
        if location.target is STEP:
            before, version = _write_step(project, location, value, now)
        else:
            row = updates.get(location.path) or rows[location.path]
            before = _value(location, {location.path: row}, {})
            version = row.version + 1
            updates[location.path] = Row(row.pk, value, version)
        revisions.append(
            (
                project,
                location.path,
                version,
                _json(before),
                _json(value),
                actor,
                refinement.pk,
                now,
            )
        )
    _execute_many(
        f"UPDATE {_table(StoreValue)} SET {', '.join(f'{c} = %s' for c in WRITTEN)} WHERE id = %s",
        [(_json(r.value), r.version, now, actor, r.pk) for r in updates.values()],
    )
    _execute_many(
        f"INSERT INTO {_table(Revision)} ({_names(REVISION_COLUMNS)}) "
        f"VALUES ({', '.join(['%s'] * len(REVISION_COLUMNS))})",
        revisions,
    )


class Row(NamedTuple):
    """A store row as the writers need it."""

    pk: int
    value: Any
    version: int


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _names(columns: tuple[str, ...]) -> str:
    return ", ".join(connection.ops.quote_name(c) for c in columns)


def _json(value: Any) -> str | None:
    """A nullable JSON column's value as the driver takes it (None: SQL NULL, as the ORM saves
    it). Text: SQLite stores it as is, PostgreSQL casts the untyped literal to jsonb."""
    return None if value is None else orjson.dumps(value).decode()


def _execute_many(sql: str, rows: list[tuple[Any, ...]]) -> None:
    if rows:
        with connection.cursor() as cursor:
            cursor.executemany(sql, rows)


STEP = Target.STEP_CONFIG


def _rows(project: int, paths: list[str], *, lock: bool) -> dict[str, Row]:
    if not paths:
        return {}
    rows = StoreValue.objects.filter(project=project, path__in=paths)
    if lock:
        key = (VALUE.project, VALUE.path)
        _execute_many(
            f"INSERT INTO {_table(StoreValue)} ({_names((*key, *WRITTEN))}) "
            f"VALUES (%s, %s, NULL, 0, 0, '') ON CONFLICT ({_names(key)}) DO NOTHING",
            [(project, path) for path in paths],
        )
        rows = rows.select_for_update().order_by("path")
    return {
        path: Row(pk, value, version)
        for pk, path, value, version in rows.values_list("pk", "path", "value", "version")
    }


def _steps(project: int, step_ids: list[str], *, lock: bool) -> dict[str, Step]:
    if not step_ids:
        return {}
    steps = Step.objects.filter(project=project, step_id__in=step_ids)
    if lock:
        Step.objects.bulk_create(
            [Step(project_id=project, step_id=s) for s in step_ids], ignore_conflicts=True
        )
        steps = steps.select_for_update().order_by("step_id")
    return {step.step_id: step for step in steps}


def _value(location: Location, rows: dict[str, Row], steps: dict[str, Step]) -> Any:
    if location.target is STEP:
        step = steps.get(location.step_id)
        return getattr(step, location.field) if step else STEP_DEFAULTS[location.field]
    row = rows.get(location.path)
    if row is None or row.value is None:
        return UNWEIGHTED if location.target is Target.ROUTER_WEIGHT else None
    return row.value


def _write_step(project: int, location: Location, value: Any, now: float) -> tuple[Any, int]:
    step, _ = Step.objects.get_or_create(project_id=project, step_id=location.step_id)
    before = getattr(step, location.field)
    setattr(step, location.field, value)
    step.updated = now
    step.save(update_fields=[location.field, "updated"])
    return before, Revision.objects.filter(project=project, path=location.path).count() + 1


def routing_weights(project: int) -> dict[str, float]:
    """The project's routing weights, by component (those never weighted are not there)."""
    rows = StoreValue.objects.filter(
        project=project, path__startswith=WEIGHT_PREFIX, value__isnull=False
    )
    return {
        row.path.removeprefix(WEIGHT_PREFIX): float(row.value)
        for row in rows
        if row.value is not None  # as filtered: said again for the type checker
    }


def routing_weights_of(project: int, components: list[str]) -> dict[str, float]:
    """The weights of these components of the project that have one: one indexed read a
    component."""
    rows = StoreValue.objects.filter(
        project=project,
        path__in=[WEIGHT_PREFIX + name for name in components],
        value__isnull=False,
    ).values_list("path", "value")
    return {
        path.removeprefix(WEIGHT_PREFIX): float(value)
        for path, value in rows
        if value is not None  # as filtered: said again for the type checker
    }


def behaviour_policy(project: int, competing: set[str]) -> Callable[[str], float | None]:
    """The probability the project's routing weights in force give each component: PPO's
    behaviour policy.

    Every competing component, and every one weighted so far, competes at its weight (0.5 if
    never weighted). feedback's `RoutingPolicy`, which the wiring passes to learn/experience.
    """
    weights = routing_weights(project)
    known = (competing | set(weights)) - {""}
    total = sum(weights.get(name, UNWEIGHTED) for name in known)

    def probability(component: str) -> float | None:
        weight = weights.get(component, UNWEIGHTED)
        if not component or weight <= 0 or total <= 0:
            return None
        return weight / total

    return probability


def routing_updated(project: int) -> float:
    row = (
        StoreValue.objects.filter(project=project, path__startswith=WEIGHT_PREFIX)
        .order_by("-updated")
        .first()
    )
    return row.updated if row else 0.0


def skill_files(project: int) -> list[StoreValue]:
    """The project's learnings files, by path."""
    return list(
        StoreValue.objects.filter(project=project, path__startswith="learnings/")
        .filter(value__isnull=False)
        .order_by("path")
    )
