"""The moments agreement is computed from, kept at ingest (feedback.models.AgreementUnit and
AgreementTotals), so that alpha after a new rating reads five rows instead of every score.

A unit is a turn (correlation_id) on a dimension; its values are the counted human scores, one
a person: their latest (the highest id), a retracted one not counted. The feedback service calls
`moments_recount`, inside its transaction, with the units a write touches (a batch's human
ratings, an undo): each is recounted from its stored feedback, so it is right whatever order
things arrive in and repeating it changes nothing, and the per-dimension totals move by the
difference between a unit's old and new share. Set-based: a handful of statements a batch,
whatever its size; a batch without human ratings costs nothing.

Locking (PostgreSQL; SQLite has one writer): the touched units' rows are made to exist, then
locked, in one order, before they are recounted in a statement of their own, so that two
people rating one turn at once are counted one after the other (as feedback.queue_state does
for turns). The totals rows are locked last, in dimension order.
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


def human_units(columns: Sequence[str], rows: Sequence[Row]) -> set[Unit]:
    """The units that these feedback rows (in `columns` order) rate with a human score."""
    key, dimension, source = (columns.index(c) for c in ("correlation_id", "dimension", "source"))
    return {(str(r[key]), str(r[dimension])) for r in rows if r[source] == HUMAN and r[key]}


def moments_recount(units: Iterable[Unit]) -> None:
    """Recount the moments of these units from their stored feedback, and move the totals."""
    wanted = sorted(set(u for u in units if u[0]))
    for start in range(0, len(wanted), IN_CHUNK):
        _recount_chunk(wanted[start : start + IN_CHUNK])


def _counted_latest(where: str) -> str:
    """SQL: the id of each person's latest counted human score, per unit, among `where`."""
    return (
        f"SELECT MAX(g.id) FROM {_table(Feedback)} g"
        f" LEFT JOIN {_table(Retraction)} r ON r.feedback_id = g.id"
        f" WHERE r.id IS NULL AND g.source = %s AND {where}"
        " GROUP BY g.correlation_id, g.dimension, g.annotator_id"
    )


def _recount_chunk(units: list[Unit]) -> None:
    insert_rows(
        AgreementUnit,
        UNIT_COLUMNS,
        [(key, dimension, 0, 0.0, 0.0, 0.0, 0.0) for key, dimension in units],
        on_conflict="ON CONFLICT (correlation_id, dimension) DO NOTHING",
    )
    keys = sorted({key for key, _ in units})
    touched = set(units)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        among, params = _among("correlation_id", keys)
        cursor.execute(
            f"SELECT correlation_id, dimension, raters, total, squares FROM {_table(AgreementUnit)}"
            f" WHERE {among} ORDER BY correlation_id, dimension{lock}",
            params,
        )
        old = {(k, d): (m, s, q) for k, d, m, s, q in cursor.fetchall() if (k, d) in touched}
        among, params = _among("g.correlation_id", keys)
        cursor.execute(
            "SELECT correlation_id, dimension, COUNT(*), SUM(score), SUM(score * score),"
            f" MIN(score), MAX(score) FROM {_table(Feedback)}"
            f" WHERE id IN ({_counted_latest(among)}) GROUP BY correlation_id, dimension",
            [HUMAN, *params],
        )
        new: dict[Unit, Moments] = {
            (k, d): (m, s, q, lo, hi) for k, d, m, s, q, lo, hi in cursor.fetchall()
        }
    rows: list[Row] = []
    shares: dict[str, list[tuple[int, float, float, int]]] = defaultdict(list)
    for unit in units:
        m, s, q, lo, hi = new.get(unit, (0, 0.0, 0.0, 0.0, 0.0))
        before = old.get(unit, (0, 0.0, 0.0))
        if (m, s, q) == before:
            continue
        variance = max(q / m - (s / m) ** 2, 0.0) if m else 0.0
        rows.append((*unit, m, s, q, hi - lo, variance))
        shares[unit[1]].append((*before, -1))
        shares[unit[1]].append((m, s, q, 1))
    insert_rows(
        AgreementUnit,
        UNIT_COLUMNS,
        rows,
        on_conflict="ON CONFLICT (correlation_id, dimension) DO UPDATE SET "
        + ", ".join(f"{_qn(c)} = excluded.{_qn(c)}" for c in UNIT_COLUMNS[2:]),
    )
    _totals_add(shares)


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
