"""The physical baseline: the driver's own bulk insert, one commit per batch, as the API commits.

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
    from collections.abc import Sequence


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


class RawTable:
    def __init__(self, conn: Any, kind: str, table: str, columns: Sequence[str]) -> None:
        self.conn = conn
        self.kind = kind
        self.table = table
        self.raw_table = clone_table(conn, kind, table)
        self.columns = list(columns)
        quoted = ", ".join(f'"{c}"' for c in self.columns)
        self._select = f'SELECT {quoted} FROM "{table}" WHERE "{self.columns[0]}" '
        if kind == "sqlite":
            marks = ", ".join("?" * len(self.columns))
            self._insert = f'INSERT INTO "{self.raw_table}" ({quoted}) VALUES ({marks})'
        else:
            self._copy = f'COPY "{self.raw_table}" ({quoted}) FROM STDIN'

    def read_back(self, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """The rows the API stored for these ids, to store again as they are."""
        if self.kind == "sqlite":
            marks = ", ".join("?" * len(ids))
            rows = self.conn.execute(self._select + f"IN ({marks})", list(ids)).fetchall()
        else:
            rows = self.conn.execute(self._select + "= ANY(%s)", [list(ids)]).fetchall()
            self.conn.commit()
        if len(rows) != len(ids):
            raise RuntimeError(f"read back {len(rows)} of {len(ids)} rows from {self.table}")
        return [tuple(row) for row in rows]

    def insert(self, rows: Sequence[tuple[Any, ...]]) -> float:
        """Insert and commit one batch; return the seconds it took."""
        start = time.perf_counter()
        if self.kind == "sqlite":
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(self._insert, rows)
            self.conn.execute("COMMIT")
        else:
            with self.conn.cursor() as cur, cur.copy(self._copy) as copy:
                for row in rows:
                    copy.write_row(row)
            self.conn.commit()
        return time.perf_counter() - start

    def count(self) -> tuple[int, int]:
        """Rows in the API's table and in the raw one."""
        counts = []
        for table in (self.table, self.raw_table):
            counts.append(int(self.conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]))
        if self.kind != "sqlite":
            self.conn.commit()
        return counts[0], counts[1]
