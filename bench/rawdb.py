"""The physical baseline: the driver's own bulk insert, one commit per batch, as the API commits.

SQLite: `executemany` inside `BEGIN IMMEDIATE ... COMMIT`, with the app's pragmas (WAL,
synchronous=NORMAL). PostgreSQL: psycopg 3 `COPY ... FROM STDIN`, one transaction per batch.
The rows are the very rows the API just wrote (read back, ids prefixed), so both sides write
the same bytes into the same tables and indexes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence


class RawTable:
    def __init__(self, conn: Any, kind: str, table: str, columns: Sequence[str]) -> None:
        self.conn = conn
        self.kind = kind
        self.table = table
        self.columns = list(columns)
        self.id_index = 0
        quoted = ", ".join(f'"{c}"' for c in self.columns)
        self._select = f'SELECT {quoted} FROM "{table}" WHERE "{self.columns[0]}" '
        if kind == "sqlite":
            marks = ", ".join("?" * len(self.columns))
            self._insert = f'INSERT INTO "{table}" ({quoted}) VALUES ({marks})'
        else:
            self._copy = f'COPY "{table}" ({quoted}) FROM STDIN'

    def read_back(self, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """The rows the API stored for these ids, with the ids changed so they can be stored again."""
        if self.kind == "sqlite":
            marks = ", ".join("?" * len(ids))
            rows = self.conn.execute(self._select + f"IN ({marks})", list(ids)).fetchall()
        else:
            rows = self.conn.execute(self._select + "= ANY(%s)", [list(ids)]).fetchall()
            self.conn.commit()
        if len(rows) != len(ids):
            raise RuntimeError(f"read back {len(rows)} of {len(ids)} rows from {self.table}")
        return [("raw-" + row[0], *row[1:]) for row in rows]

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

    def count(self) -> int:
        row = self.conn.execute(f'SELECT COUNT(*) FROM "{self.table}"').fetchone()
        if self.kind != "sqlite":
            self.conn.commit()
        return int(row[0])
