"""The physical baseline, one copy: the driver's own bulk insert, and the tables it writes.

The ingest baseline: the driver's own bulk insert, one commit per batch, as the API commits.

SQLite: `executemany` inside `BEGIN IMMEDIATE ... COMMIT`, with the app's pragmas (WAL,
synchronous=NORMAL). PostgreSQL: psycopg 3 `COPY ... FROM STDIN`, one transaction per batch.
The rows are the very rows the API just wrote (read back), inserted into a table of their own
in the same database file: `<table>_raw`, made by `clone_table` with the same columns,
constraints and indexes. So both sides write the same bytes into tables and indexes of the
same size, and neither side's rows slow the other's (inserting them into the API's own table
doubled it, and halved the raw side's rate as the indexes outgrew the cache).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


def clone_table(conn: Any, kind: str, table: str) -> str:
    """`<table>_raw`: an empty table of the same schema and indexes, in the same database."""
    clone = f"{table}_raw"
    if kind == "sqlite":
        sql = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL "
            "ORDER BY type = 'index'",
            [table],
        ).fetchall()
        conn.execute("BEGIN IMMEDIATE")
        for kind_, name, statement in sql:
            statement = statement.replace(f'"{table}"', f'"{clone}"', 1)
            if kind_ == "index":
                statement = statement.replace(f'"{name}"', f'"{name}_raw"', 1)
            conn.execute(statement)
        conn.execute("COMMIT")
    else:
        conn.execute(f'CREATE TABLE "{clone}" (LIKE "{table}" INCLUDING ALL)')
        conn.commit()
    return clone


def driver_insert(
    conn: Any, vendor: str, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Rows written by the driver's own bulk path in the caller's transaction: `COPY ... FROM
    STDIN` on PostgreSQL (psycopg), `executemany` on SQLite; `table` and `columns` unquoted."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    if vendor == "postgresql":
        with conn.cursor() as cur, cur.copy(f'COPY "{table}" ({quoted}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row)
    else:
        marks = ", ".join("?" * len(columns))
        conn.executemany(f'INSERT INTO "{table}" ({quoted}) VALUES ({marks})', rows)


def insert_committed(
    conn: Any, vendor: str, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> float:
    """`driver_insert` in a transaction of its own, as the API commits a batch; the seconds."""
    start = time.perf_counter()
    if vendor == "sqlite":
        conn.execute("BEGIN IMMEDIATE")
    driver_insert(conn, vendor, table, columns, rows)
    if vendor == "sqlite":
        conn.execute("COMMIT")
    else:
        conn.commit()
    return time.perf_counter() - start


def read_back(
    conn: Any, vendor: str, table: str, columns: Sequence[str], ids: Sequence[str]
) -> list[tuple[Any, ...]]:
    """The stored rows of these ids (`columns[0]` is the id), to store again as they are."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    select = f'SELECT {quoted} FROM "{table}" WHERE "{columns[0]}" '
    if vendor == "sqlite":
        rows = conn.execute(select + f"IN ({', '.join('?' * len(ids))})", list(ids)).fetchall()
    else:
        rows = conn.execute(select + "= ANY(%s)", [list(ids)]).fetchall()
        conn.commit()
    if len(rows) != len(ids):
        raise RuntimeError(f"read back {len(rows)} of {len(ids)} rows from {table}")
    return [tuple(row) for row in rows]


class RawTable:
    """The ingest sections' raw side: the API's rows again, in `<table>_raw`."""

    def __init__(self, conn: Any, kind: str, table: str, columns: Sequence[str]) -> None:
        self.conn = conn
        self.kind = kind
        self.table = table
        self.raw_table = clone_table(conn, kind, table)
        self.columns = list(columns)

    def read_back(self, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        return read_back(self.conn, self.kind, self.table, self.columns, ids)

    def insert(self, rows: Sequence[tuple[Any, ...]]) -> float:
        """Insert and commit one batch; return the seconds it took."""
        return insert_committed(self.conn, self.kind, self.raw_table, self.columns, rows)

    def count(self) -> tuple[int, int]:
        """Rows in the API's table and in the raw one."""
        counts = []
        for table in (self.table, self.raw_table):
            counts.append(int(self.conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]))
        if self.kind != "sqlite":
            self.conn.commit()
        return counts[0], counts[1]
