"""Raw multi-row writes for the ingest hot path.

The ORM's bulk_create costs about twice the driver's executemany at these batch sizes, and
ingest is the product's busiest path, so it writes through the cursor. Both SQLite and
PostgreSQL understand `ON CONFLICT ... DO NOTHING / DO UPDATE`.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import sqlite3
from typing import TYPE_CHECKING, Any

from django.db import connection, models
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

from core.columns import Columns
from core.timing import staged

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

IN_CHUNK = 900
# One row of raw values, in the order of its columns.
Row = tuple[str | float | bytes | None, ...]


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@staged("INSERT (`feedback.bulk.insert_rows`)")
def insert_rows(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Sequence[Row],
    *,
    on_conflict: str = "",
    distinct: bool = False,
) -> int:
    """Write `rows`; returns how many were written (fewer than sent where `on_conflict` skips).

    `distinct`: no two rows share the conflict's key (an upsert of keys tallied beforehand),
    so that on PostgreSQL one statement may DO UPDATE them all.
    """
    if not rows:
        return 0
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    if connection.vendor == "postgresql" and not on_conflict:
        # COPY streams the rows in one command: less than half the time of executemany here.
        # Inside Django's error wrapping, so that a duplicate key is an IntegrityError as elsewhere.
        with (
            connection.cursor() as cursor,
            connection.wrap_database_errors,
            cursor.cursor.copy(f"COPY {_table(model)} ({names}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
        return len(rows)
    if (
        connection.vendor == "postgresql"
        and len(rows) > 1
        and (distinct or on_conflict.endswith("DO NOTHING"))
    ):
        # One statement over one array a column, instead of one INSERT a row: executemany binds
        # and sends each row (at 1000 turns, most of the ingest's client time on PostgreSQL;
        # a VALUES list of a few hundred rows costs PostgreSQL 4-6x as much to parse and plan).
        # DO UPDATE only for distinct keys: one statement may not update a row twice.
        fields = [model._meta.get_field(c) for c in columns]
        arrays = ", ".join(f"%s::{f.db_type(connection)}[]" for f in fields)
        sql = f"INSERT INTO {_table(model)} ({names}) SELECT * FROM unnest({arrays}) {on_conflict}"
        with connection.cursor() as cursor:
            cursor.execute(sql, [list(column) for column in zip(*rows, strict=True)])
            return int(cursor.rowcount)
    if connection.vendor == "sqlite":
        return _insert_values(_table(model), names, len(columns), rows, on_conflict)
    marks = ", ".join(["%s"] * len(columns))
    sql = f"INSERT INTO {_table(model)} ({names}) VALUES ({marks}) {on_conflict}"
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)
        return int(cursor.rowcount)


def _insert_values(
    table: str, names: str, width: int, rows: Sequence[Row], on_conflict: str
) -> int:
    """SQLite: the rows as a few INSERTs of many rows each, instead of one INSERT a row.

    A third fewer instructions for 1000 feedback rows than executemany: a statement is stepped,
    reset and (for an AUTOINCREMENT key, as Django makes them) closed by a write of
    sqlite_sequence once, not once a row. Statements hold a power of two of rows, so that a
    handful of texts, each prepared once and cached by the driver, serve every batch size.
    """
    largest = _largest_statement(width)
    written = 0
    with connection.cursor() as cursor:
        start = 0
        while start < len(rows):
            size = largest
            while size > len(rows) - start:
                size //= 2
            part = rows[start : start + size]
            cursor.execute(
                _values_sql(table, names, width, size, on_conflict),
                list(itertools.chain.from_iterable(part)),
            )
            written += cursor.rowcount
            start += size
    return written


def _largest_statement(width: int) -> int:
    """The most rows one INSERT carries: 256, or fewer where the SQLite library takes fewer
    parameters a statement (999 before 3.32)."""
    limit = connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    size = 256
    while size > 1 and size * width > limit:
        size //= 2
    return size


@functools.lru_cache(maxsize=256)
def _values_sql(table: str, names: str, width: int, size: int, on_conflict: str) -> str:
    row = "(" + ", ".join(["%s"] * width) + ")"
    return f"INSERT INTO {table} ({names}) VALUES {', '.join([row] * size)} {on_conflict}"


def existing_values(
    model: type[models.Model],
    key: str,
    value: str,
    keys: Iterable[str],
    *,
    project: int | None = None,
) -> dict[str, Any]:
    """{key: value} for the rows among `keys` that already exist; `key` is a unique column, or
    unique within a project, when `project` names the one to look in."""
    keys = list(keys)
    found: dict[str, Any] = {}
    qn = connection.ops.quote_name
    within, scope = "", []
    if project is not None:
        within, scope = f" AND {qn(Columns(model).project)} = %s", [project]
    if connection.vendor == "postgresql":
        # One probe of the unique index a key (LIMIT 1 keeps the subquery a lookup per key).
        # As `key = ANY(array)` the planner scans the whole table whenever its estimate says so
        # (at tens of thousands of rows, without ANALYZE: 10-30 ms a batch against 3).
        sql = (
            "SELECT found.k, found.v FROM unnest(%b::text[]) AS wanted(k) "
            f"CROSS JOIN LATERAL (SELECT {qn(key)} AS k, {qn(value)} AS v "
            f"FROM {_table(model)} WHERE {qn(key)} = wanted.k{within} LIMIT 1) AS found"
        )
        with server_bound_cursor() as cursor:
            cursor.execute(sql, [keys, *scope])
            return dict(cursor.fetchall())
    with connection.cursor() as cursor:
        for start in range(0, len(keys), IN_CHUNK):
            chunk = keys[start : start + IN_CHUNK]
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT {qn(key)}, {qn(value)} FROM {_table(model)}"
                f" WHERE {qn(key)} IN ({marks}){within}",
                [*chunk, *scope],
            )
            found.update(cursor.fetchall())
    return found


@contextlib.contextmanager
def server_bound_cursor() -> Iterator[CursorWrapper]:
    """A cursor on PostgreSQL whose parameters the server binds (psycopg's own `Cursor`).

    Django's cursors bind client-side: an array parameter is quoted value by value into the
    statement's text, in Python. Wrapped as Django wraps its own, so that errors, query logging
    and `assertNumQueries` see what it runs.
    """
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors:
        raw = psycopg.Cursor(connection.connection)
    wrapper = CursorDebugWrapper if connection.queries_logged else CursorWrapper
    with wrapper(raw, connection) as cursor:
        yield cursor
