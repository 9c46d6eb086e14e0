"""The moments agreement is computed from, kept at ingest (feedback.models.AgreementUnit and
AgreementTotals), so that alpha after a new rating reads five rows instead of every score.

A unit is a turn (correlation_id) on a dimension; its values are the counted human scores, one
a person: their latest (the highest id), a retracted one not counted. The feedback service calls
`moments_recount`, inside its transaction, with the units a write touches (a batch's human
ratings, an undo): each is recounted from its stored feedback, so it is right whatever order
things arrive in and repeating it changes nothing, and the per-dimension totals move by the
difference between a unit's old and new share. Set-based: a handful of statements a batch,
whatever its size; a batch without human ratings costs nothing.

Locking (PostgreSQL; SQLite has one writer): the touched dimensions' totals rows, in one order,
before the recount, which is a statement of its own, so that two people rating one turn at
once are counted one after the other (as feedback.queue_state does for turns).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import connection

from feedback.agreement import unit_observed
from feedback.bulk import IN_CHUNK, insert_rows
from feedback.models import AgreementTotals, AgreementUnit, Feedback, Retraction
from learnportal.protocol import FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from feedback.bulk import Row

Unit = tuple[str, str]  # (correlation_id, dimension)
# count, sum, sum of squares, min, max of a unit's values
Moments = tuple[int, float, float, float, float]
UNIT_COLUMNS = ("correlation_id", "dimension", "raters", "total", "squares", "spread", "variance")
TOTALS_COLUMNS = ("dimension", "units", "values", "total", "squares", "observed")
HUMAN = FeedbackSource.HUMAN.value


def _table(model: Any) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _qn(name: str) -> str:
    return connection.ops.quote_name(name)


def _among(column: str, keys: list[Any]) -> tuple[str, list[Any]]:
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)", [keys]
    return f"{column} IN ({', '.join(['%s'] * len(keys))})", list(keys)


def moments_add(columns: Sequence[str], rows: Sequence[Row]) -> None:
    """Fold these new feedback rows (in `columns` order, as stored, in id order) into the
    moments of the units they rate with a human score."""
    key, dimension, source, person, score = (
        columns.index(c) for c in ("correlation_id", "dimension", "source", "annotator_id", "score")
    )
    batch: dict[Unit, dict[str, float]] = defaultdict(dict)
    for r in rows:
        if r[source] == HUMAN and r[key]:
            # A person's later score of a unit replaces the earlier: the later row, here.
            batch[(str(r[key]), str(r[dimension]))][str(r[person])] = float(r[score])  # type: ignore[arg-type]
    _recount(sorted(batch), batch)


def moments_recount(units: Iterable[Unit]) -> None:
    """Recount the moments of these units from their stored feedback, and move the totals."""
    _recount(sorted({u for u in units if u[0]}), {})


def _recount(wanted: list[Unit], batch: dict[Unit, dict[str, float]]) -> None:
    # One statement over arrays on PostgreSQL; chunks of SQLite's parameter list elsewhere.
    size = (len(wanted) or 1) if connection.vendor == "postgresql" else IN_CHUNK
    for start in range(0, len(wanted), size):
        _recount_chunk(wanted[start : start + size], batch)


def _counted_latest(where: str) -> str:
    """SQL: the id of each person's latest counted human score, per unit, among `where`."""
    return (
        f"SELECT MAX(g.id) FROM {_table(Feedback)} g"
        f" LEFT JOIN {_table(Retraction)} r ON r.feedback_id = g.id"
        f" WHERE r.id IS NULL AND g.source = %s AND {where}"
        " GROUP BY g.correlation_id, g.dimension, g.annotator_id"
    )


def _lock(dimensions: list[str]) -> None:
    """Serialise the transactions that touch one dimension's units (PostgreSQL; SQLite has one
    writer), by locking its totals row first, in dimension order: a transaction that moves the
    totals holds that lock until it commits anyway, so taking it before the recount costs no
    concurrency and makes the recount (a statement of its own) see what committed while this
    one waited, also for a unit that no row stands for yet (a first rating)."""
    if connection.vendor != "postgresql":
        return
    insert_rows(
        AgreementTotals,
        TOTALS_COLUMNS,
        [(dimension, 0, 0, 0.0, 0.0, 0.0) for dimension in dimensions],
        on_conflict="ON CONFLICT (dimension) DO NOTHING",
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {_table(AgreementTotals)} WHERE dimension = ANY(%s)"
            " ORDER BY dimension FOR UPDATE",
            [dimensions],
        )


def _recount_chunk(units: list[Unit], batch: dict[Unit, dict[str, float]]) -> None:
    keys = sorted({key for key, _ in units})
    _lock(sorted({dimension for _, dimension in units}))
    with connection.cursor() as cursor:
        among, params = _among("correlation_id", keys)
        cursor.execute(
            f"SELECT correlation_id, dimension, raters, total, squares FROM {_table(AgreementUnit)}"
            f" WHERE {among}",
            params,
        )
        old = {(k, d): (m, s, q) for k, d, m, s, q in cursor.fetchall()}
    # A unit with no row had no counted human score before: its values are the batch's own
    # (the common case, a first rating). The others are recounted from what is stored.
    stored = [unit for unit in units if unit in old or unit not in batch]
    scores: dict[Unit, list[float]] = {
        unit: list(batch[unit].values()) for unit in units if unit not in old and unit in batch
    }
    scores.update(_stored_scores(stored))
    rows: list[Row] = []
    shares: dict[str, list[tuple[int, float, float, int]]] = defaultdict(list)
    for unit in units:
        values = scores.get(unit, [])
        m, s, q = len(values), float(sum(values)), float(sum(x * x for x in values))
        before = old.get(unit, (0, 0.0, 0.0))
        if (m, s, q) == before:
            continue
        variance = max(q / m - (s / m) ** 2, 0.0) if m else 0.0
        spread = max(values) - min(values) if values else 0.0
        rows.append((*unit, m, s, q, spread, variance))
        shares[unit[1]].append((*before, -1))
        shares[unit[1]].append((m, s, q, 1))
    _units_write(rows)
    _totals_add(shares)


def _stored_scores(units: list[Unit]) -> dict[Unit, list[float]]:
    """Each unit's counted human scores as stored: a person's latest (the highest id)."""
    if not units:
        return {}
    touched = set(units)
    keys = sorted({key for key, _ in units})
    latest: dict[tuple[str, str, str], tuple[int, float]] = {}
    with connection.cursor() as cursor:
        # `source` stays out of the WHERE, so that no planner (SQLite's without statistics)
        # reads the index of every human rating instead of these turns' few rows.
        among, params = _among("g.correlation_id", keys)
        cursor.execute(
            "SELECT g.id, g.correlation_id, g.dimension, g.annotator_id, g.score, g.source"
            f" FROM {_table(Feedback)} g LEFT JOIN {_table(Retraction)} r ON r.feedback_id = g.id"
            f" WHERE r.id IS NULL AND {among}",
            params,
        )
        for pk, key, dimension, person, score, source in cursor.fetchall():
            if source != HUMAN or (key, dimension) not in touched:
                continue
            seen = latest.get((key, dimension, person))
            if seen is None or seen[0] < pk:
                latest[(key, dimension, person)] = (pk, score)
    scores: dict[Unit, list[float]] = {unit: [] for unit in units}
    for (key, dimension, _), (_, score) in latest.items():
        scores[(key, dimension)].append(score)
    return scores


def _units_write(rows: list[Row]) -> None:
    if not rows:
        return
    update = "ON CONFLICT (correlation_id, dimension) DO UPDATE SET " + ", ".join(
        f"{_qn(c)} = excluded.{_qn(c)}" for c in UNIT_COLUMNS[2:]
    )
    if connection.vendor != "postgresql":
        insert_rows(AgreementUnit, UNIT_COLUMNS, rows, on_conflict=update)
        return
    # One statement over one array a column (each unit once in `rows`, as DO UPDATE needs).
    types = ("text", "text", "integer", "float8", "float8", "float8", "float8")
    arrays = ", ".join(f"%s::{t}[]" for t in types)
    names = ", ".join(_qn(c) for c in UNIT_COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_table(AgreementUnit)} ({names}) SELECT * FROM unnest({arrays}) {update}",
            [list(column) for column in zip(*rows, strict=True)],
        )


def _totals_add(shares: dict[str, list[tuple[int, float, float, int]]]) -> None:
    """Move each dimension's totals by units leaving (sign -1) and arriving (+1); a unit with
    fewer than two values is in no total."""
    rows: list[Row] = []
    for dimension in sorted(shares):
        m, s, q, sign = (np.asarray(column) for column in zip(*shares[dimension], strict=True))
        pairable = m >= 2
        signed = np.where(pairable, sign, 0)
        rows.append(
            (
                dimension,
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
        [row for row in rows if any(row[1:])],
        on_conflict="ON CONFLICT (dimension) DO UPDATE SET "
        + ", ".join(f"{_qn(c)} = {table}.{_qn(c)} + excluded.{_qn(c)}" for c in TOTALS_COLUMNS[1:]),
    )


def moments_rebuild() -> int:
    """Every unit and total recounted from the stored feedback, in the caller's transaction
    (manage.py feedback_recount: for rows stored before the moments were kept). Returns the
    number of units."""
    unit_table = _table(AgreementUnit)
    mean = "SUM(score) / COUNT(*)"
    spread = f"SUM(score * score) / COUNT(*) - ({mean}) * ({mean})"
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {unit_table}")
        cursor.execute(
            f"INSERT INTO {unit_table} ({', '.join(UNIT_COLUMNS)})"
            " SELECT correlation_id, dimension, COUNT(*), SUM(score), SUM(score * score),"
            f" MAX(score) - MIN(score), CASE WHEN {spread} > 0 THEN {spread} ELSE 0.0 END"
            f" FROM {_table(Feedback)} WHERE id IN ({_counted_latest('g.correlation_id <> %s')})"
            " GROUP BY correlation_id, dimension",
            [HUMAN, ""],
        )
        cursor.execute(f"DELETE FROM {_table(AgreementTotals)}")
    shares: dict[str, list[tuple[int, float, float, int]]] = defaultdict(list)
    rows = AgreementUnit.objects.filter(raters__gte=2).values_list(
        "dimension", "raters", "total", "squares"
    )
    for dimension, m, s, q in rows.iterator(chunk_size=10_000):
        shares[dimension].append((m, s, q, 1))
    _totals_add(shares)
    return AgreementUnit.objects.count()
