"""The moments agreement is computed from, kept at ingest (feedback.models.AgreementUnit and
AgreementTotals), so that alpha after a new rating reads five rows instead of every score.

A unit is a turn (a project's correlation_id) on a dimension; its values are the counted human scores, one
a person: their latest, a retracted one not counted. A score of one step of a turn rates
something else than the turn, and is in no unit here (a step's agreement is per question:
feedback.question_sums). Only a unit with two values or more pairs
with anything, so only those are kept (a first rating writes no unit); the per-dimension
totals sum over them. A write's new human ratings are folded in from the facts of their turns
(feedback.facts: the stored ones, read once, and the write's own); an undo recounts its unit
from what is stored. Either way a unit's value is worked out from its scores, so it is right
whatever order things arrive in and working it out again changes nothing, and the totals move
by the difference between a unit's old and new share. A batch without human ratings costs
nothing.

Locking (PostgreSQL; SQLite has one writer): the touched dimensions' totals rows, in one order,
before the unit's scores are read (`moments_lock`), so that two people rating one turn at once
are counted one after the other (as feedback.queue_state does for turns).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import connection

from core.columns import Columns
from feedback.agreement import unit_observed
from feedback.bulk import IN_CHUNK, insert_rows
from feedback.facts import stored_facts
from feedback.models import AgreementTotals, AgreementUnit, Feedback, Retraction
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from feedback.bulk import Row
    from feedback.facts import Fact

Unit = tuple[str, str]  # (correlation_id, dimension), within one project
Moments = tuple[int, float, float]  # count, sum, sum of squares of a unit's values
NONE: Moments = (0, 0.0, 0.0)
UNIT = Columns(AgreementUnit)
UNIT_KEY = UNIT("project", "correlation_id", "dimension")
UNIT_MOMENTS = UNIT("raters", "total", "squares")  # a unit's Moments, in that order
UNIT_COLUMNS = (*UNIT_KEY, *UNIT_MOMENTS, *UNIT("spread", "variance"))
TOTALS = Columns(AgreementTotals)
TOTALS_KEY = TOTALS("project", "dimension")
TOTALS_COLUMNS = (*TOTALS_KEY, *TOTALS("units", "values", "total", "squares", "observed"))
FEEDBACK = Columns(Feedback)
RETRACTION = Columns(Retraction)
HUMAN = FeedbackSource.HUMAN.value


def _table(model: Any) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _qn(name: str) -> str:
    return connection.ops.quote_name(name)


def _names(*columns: str) -> str:
    return ", ".join(_qn(c) for c in columns)


def _among(column: str, keys: list[Any]) -> tuple[str, list[Any]]:
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)", [keys]
    return f"{column} IN ({', '.join(['%s'] * len(keys))})", list(keys)


def _turn_score(fact: Fact) -> bool:
    """Whether the fact is a person's score of a whole turn: a value of a unit."""
    return fact.source == HUMAN and not fact.step_id


def human_dimensions(batch: Iterable[Fact]) -> list[str]:
    """The dimensions these facts rate with a human score about a turn: what to lock."""
    return sorted({f.dimension for f in batch if _turn_score(f) and f.correlation_id})


def moments_add(project: int, stored: Mapping[str, list[Fact]], batch: list[Fact]) -> None:
    """Fold the human scores among `batch` (this write's facts in the project, in order) into
    their units.

    `stored`: the stored facts of those units' turns, read after `moments_lock` of their
    dimensions and before the write's own rows were stored."""
    scored = [fact for fact in batch if _turn_score(fact)]
    if len({(f.correlation_id, f.dimension) for f in scored}) == len(scored) and not any(
        stored.get(f.correlation_id) for f in scored
    ):
        return  # first ratings, one a unit (the common case): each unit has one value
    new: dict[Unit, dict[str, float]] = {}
    for fact in scored:
        # A person's later score of a unit replaces the earlier: the later fact, here.
        new.setdefault((fact.correlation_id, fact.dimension), {})[fact.annotator_id] = fact.score
    touched = {key: stored[key] for key in {key for key, _ in new} if stored.get(key)}
    before = _values(touched, [unit for unit in new if unit[0] in touched])
    units, old, values = [], {}, {}
    for unit, scores in new.items():
        earlier = before.get(unit, {})
        if len(earlier.keys() | scores.keys()) < 2:
            continue  # under two values before and after: in no total, kept in no row
        units.append(unit)
        old[unit] = _moments(list(earlier.values()))
        values[unit] = list((earlier | scores).values())
    _apply(project, sorted(units), old, values)


def moments_recount(project: int, units: Iterable[Unit]) -> None:
    """Recount the moments of these units of the project from their stored feedback, and move
    the totals."""
    wanted = sorted({u for u in units if u[0]})
    if not wanted:
        return
    moments_lock(project, sorted({dimension for _, dimension in wanted}))
    old: dict[Unit, Moments] = {}
    keys = sorted({key for key, _ in wanted})
    with connection.cursor() as cursor:
        for start in range(0, len(keys), IN_CHUNK):
            among, params = _among(UNIT.correlation_id, keys[start : start + IN_CHUNK])
            cursor.execute(
                f"SELECT {_names(*UNIT_KEY[1:], *UNIT_MOMENTS)} FROM {_table(AgreementUnit)}"
                f" WHERE {_qn(UNIT.project)} = %s AND {among}",
                [project, *params],
            )
            old.update({(k, d): (m, s, q) for k, d, m, s, q in cursor.fetchall()})
    now = _values(stored_facts(project, keys), wanted)
    _apply(project, wanted, old, {unit: list(now[unit].values()) for unit in wanted})


def _values(facts: Mapping[str, list[Fact]], units: list[Unit]) -> dict[Unit, dict[str, float]]:
    """Each unit's values by person: their latest human score, from facts in order."""
    latest: dict[Unit, dict[str, float]] = {unit: {} for unit in units}
    for key in {key for key, _ in units}:
        for fact in facts.get(key, ()):
            person_scores = latest.get((key, fact.dimension))
            if person_scores is not None and _turn_score(fact):
                person_scores[fact.annotator_id] = fact.score
    return latest


def _moments(values: list[float]) -> Moments:
    return len(values), float(sum(values)), float(sum(x * x for x in values))


def _apply(
    project: int,
    units: list[Unit],
    old: Mapping[Unit, Moments],
    values: Mapping[Unit, list[float]],
) -> None:
    """Keep each unit's new moments (a row while it has two values or more) and move the
    totals by the difference between its old share and its new one."""
    rows: list[Row] = []
    gone: list[Unit] = []
    shares: dict[str, list[tuple[int, float, float, int]]] = defaultdict(list)
    for unit in units:
        now = values.get(unit, [])
        m, s, q = _moments(now)
        before = old.get(unit, NONE)
        if (m, s, q) == before:
            continue
        if m >= 2:
            variance = max(q / m - (s / m) ** 2, 0.0)
            rows.append((project, *unit, m, s, q, max(now) - min(now), variance))
        elif before[0]:
            gone.append(unit)
        shares[unit[1]].append((*before, -1))
        shares[unit[1]].append((m, s, q, 1))
    _units_write(rows)
    _units_delete(project, gone)
    _totals_add({(project, dimension): share for dimension, share in shares.items()})


def moments_lock(project: int, dimensions: list[str]) -> None:
    """Serialise the transactions that touch one dimension's units (PostgreSQL; SQLite has one
    writer), by locking its totals row first, in dimension order: a transaction that moves the
    totals holds that lock until it commits anyway, so taking it before the recount costs no
    concurrency and makes the recount (a statement of its own) see what committed while this
    one waited, also for a unit that no row stands for yet (a first rating)."""
    if connection.vendor != "postgresql" or not dimensions:
        return
    insert_rows(
        AgreementTotals,
        TOTALS_COLUMNS,
        [(project, dimension, 0, 0, 0.0, 0.0, 0.0) for dimension in dimensions],
        on_conflict=f"ON CONFLICT ({_names(*TOTALS_KEY)}) DO NOTHING",
    )
    dimension = _qn(TOTALS.dimension)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {_table(AgreementTotals)}"
            f" WHERE {_qn(TOTALS.project)} = %s AND {dimension} = ANY(%s)"
            f" ORDER BY {dimension} FOR UPDATE",
            [project, dimensions],
        )


def _units_write(rows: list[Row]) -> None:
    update = f"ON CONFLICT ({_names(*UNIT_KEY)}) DO UPDATE SET " + ", ".join(
        f"{_qn(c)} = excluded.{_qn(c)}" for c in UNIT_COLUMNS[len(UNIT_KEY) :]
    )
    insert_rows(AgreementUnit, UNIT_COLUMNS, rows, on_conflict=update, distinct=True)


def _units_delete(project: int, units: list[Unit]) -> None:
    """Drop the rows of units left with fewer than two values (an undo)."""
    where = " AND ".join(f"{_qn(c)} = %s" for c in UNIT_KEY)
    with connection.cursor() as cursor:
        for key, dimension in units:
            cursor.execute(
                f"DELETE FROM {_table(AgreementUnit)} WHERE {where}", [project, key, dimension]
            )


def _totals_add(shares: dict[tuple[int, str], list[tuple[int, float, float, int]]]) -> None:
    """Move each (project, dimension)'s totals by units leaving (sign -1) and arriving (+1); a
    unit with fewer than two values is in no total."""
    rows: list[Row] = []
    for key in sorted(shares):
        m, s, q, sign = (np.asarray(column) for column in zip(*shares[key], strict=True))
        pairable = m >= 2
        signed = np.where(pairable, sign, 0)
        rows.append(
            (
                *key,
                int(signed.sum()),
                int((signed * m).sum()),
                float((signed * s).sum()),
                float((signed * q).sum()),
                float((signed * unit_observed(m, s, q)).sum()),
            )
        )
    table = _table(AgreementTotals)
    insert_rows(
        AgreementTotals,
        TOTALS_COLUMNS,
        [row for row in rows if any(row[len(TOTALS_KEY) :])],
        on_conflict=f"ON CONFLICT ({_names(*TOTALS_KEY)}) DO UPDATE SET "
        + ", ".join(
            f"{_qn(c)} = {table}.{_qn(c)} + excluded.{_qn(c)}"
            for c in TOTALS_COLUMNS[len(TOTALS_KEY) :]
        ),
        distinct=True,  # one row a project and dimension
    )


def _counted_latest(where: str) -> str:
    """SQL: the id of each person's latest counted human score, per unit, among `where`."""
    unit = ", ".join(
        f"g.{_qn(c)}" for c in FEEDBACK("project", "correlation_id", "dimension", "annotator_id")
    )
    return (
        f"SELECT MAX(g.id) FROM {_table(Feedback)} g"
        f" LEFT JOIN {_table(Retraction)} r ON r.{_qn(RETRACTION.feedback)} = g.id"
        f" WHERE r.id IS NULL AND g.{_qn(FEEDBACK.source)} = %s"
        f" AND g.{_qn(FEEDBACK.step_id)} = '' AND {where}"
        f" GROUP BY {unit}"
    )


def moments_rebuild() -> int:
    """Every unit and total recounted from the stored feedback, in the caller's transaction
    (manage.py feedback_recount: for rows stored before the moments were kept). Returns the
    number of units."""
    unit_table = _table(AgreementUnit)
    project, key, dimension, score = (
        _qn(c) for c in FEEDBACK("project", "correlation_id", "dimension", "score")
    )
    mean = f"SUM({score}) / COUNT(*)"
    spread = f"SUM({score} * {score}) / COUNT(*) - ({mean}) * ({mean})"
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {unit_table}")
        cursor.execute(
            f"INSERT INTO {unit_table} ({_names(*UNIT_COLUMNS)})"
            f" SELECT {project}, {key}, {dimension}, COUNT(*), SUM({score}),"
            f" SUM({score} * {score}), MAX({score}) - MIN({score}),"
            f" CASE WHEN {spread} > 0 THEN {spread} ELSE 0.0 END"
            f" FROM {_table(Feedback)} WHERE id IN ({_counted_latest(f'g.{key} <> %s')})"
            f" GROUP BY {project}, {key}, {dimension} HAVING COUNT(*) >= 2",
            [HUMAN, ""],
        )
        cursor.execute(f"DELETE FROM {_table(AgreementTotals)}")
    shares: dict[tuple[int, str], list[tuple[int, float, float, int]]] = defaultdict(list)
    rows = AgreementUnit.objects.values_list(
        "project_id", "dimension", "raters", "total", "squares"
    )
    for project_id, dimension_of, m, s, q in rows.iterator(chunk_size=10_000):
        shares[project_id, dimension_of].append((m, s, q, 1))
    _totals_add(shares)
    return AgreementUnit.objects.count()
