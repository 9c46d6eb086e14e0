"""Django's SQLite cursor, converting a statement's `%s` marks to `?` once per text.

Django converts each statement's marks with a regular expression every time it runs; for the
long statements of the ingest path (an INSERT of 256 rows, a lookup of 900 keys) that was a
millisecond or more a batch, for the same few texts again and again.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db.backends.sqlite3.base import FORMAT_QMARK_REGEX, SQLiteCursorWrapper


@functools.lru_cache(maxsize=512)
def qmarks(query: str) -> str:
    """`query` with Django's "format" marks as SQLite's "qmark" ones."""
    return FORMAT_QMARK_REGEX.sub("?", query).replace("%%", "%")


class QmarkCursor(SQLiteCursorWrapper):
    def convert_query(self, query: str, *, param_names: Any = None) -> str:
        if param_names is None:
            return qmarks(query)
        return super().convert_query(query, param_names=param_names)
