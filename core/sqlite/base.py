"""SQLite with its connections kept for reuse: Django's backend plus a small pool per file, and
its statements' parameter marks converted once per text.

Django opens a connection per request and closes it at the end (CONN_MAX_AGE=0), and under ASGI
each request runs its sync view in a thread of its own, so a connection kept per thread would
leak one per request. Here closing hands the open connection back to a pool of the database
file and the next request, whatever its thread, takes it: no reconnect and no pragmas per
request. A connection comes back rolled back, and one that fails to roll back is closed; one
whose file was removed or replaced since (a test database made again) is closed, not reused.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any

from django.db.backends.sqlite3 import base

from core.sqlite.marks import QmarkCursor

MAX_IDLE = 16  # kept per database file; more are closed when handed back

# None has no adapter, so the driver looks one up for every NULL it binds, and fails twice
# (`__adapt__`, `__conform__`) before binding it as NULL: about a microsecond each, 4000 a batch
# of 1000 rated turns. Found in the adapters' table instead, it costs a dict lookup and a call.
sqlite3.register_adapter(type(None), lambda value: value)

_lock = threading.Lock()
_idle: dict[str, list[tuple[sqlite3.Connection, int]]] = {}  # with the file's inode


def _inode(path: str) -> int:
    try:
        return os.stat(path).st_ino
    except OSError:
        return -1


class DatabaseWrapper(base.DatabaseWrapper):
    def create_cursor(self, name: str | None = None) -> QmarkCursor:
        cursor: QmarkCursor = self.connection.cursor(factory=QmarkCursor)
        return cursor

    def _pool_key(self) -> str | None:
        if self.is_in_memory_db():
            return None
        return str(self.settings_dict["NAME"])

    def get_new_connection(self, conn_params: Any) -> sqlite3.Connection:
        key = self._pool_key()
        if key is not None:
            inode = _inode(key)
            while True:
                with _lock:
                    idle = _idle.get(key)
                    kept = idle.pop() if idle else None
                if kept is None:
                    break
                if kept[1] == inode:
                    return kept[0]
                kept[0].close()
        connection: sqlite3.Connection = super().get_new_connection(conn_params)
        return connection

    def _close(self) -> None:
        connection = self.connection
        key = self._pool_key()
        if connection is None or key is None:
            super()._close()  # type: ignore[misc]  # not in django-stubs
            return
        try:
            if connection.in_transaction:
                connection.rollback()
        except sqlite3.Error:
            connection.close()
            return
        inode = _inode(key)
        with _lock:
            idle = _idle.setdefault(key, [])
            if len(idle) < MAX_IDLE and inode != -1:
                idle.append((connection, inode))
                return
        connection.close()


def close_idle() -> None:
    """Close every kept connection (before a database file is removed or replaced)."""
    with _lock:
        connections = [c for idle in _idle.values() for c, _ in idle]
        _idle.clear()
    for connection in connections:
        connection.close()
