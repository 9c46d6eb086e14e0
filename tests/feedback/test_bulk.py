"""The ingest path's raw writes (feedback.bulk): every row, in the order sent, counted."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import pytest
from django.db import connection

from feedback.bulk import insert_rows
from feedback.models import Counter
from tests.harness import default_pk

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.django_db

COLUMNS = ("project_id", "name", "slot", "value")
SKIP_TAKEN = "ON CONFLICT (project_id, name, slot) DO NOTHING"


def rows(count: int, name: str = "n") -> list[tuple[int, str, int, int]]:
    project = default_pk()
    return [(project, name, slot, slot * 7) for slot in range(count)]


def stored() -> list[tuple[int, str, int, int]]:
    return list(Counter.objects.filter(name="n").order_by("id").values_list(*COLUMNS))


@pytest.mark.parametrize("count", [1, 2, 255, 256, 257, 777, 1000])
def test_any_number_of_rows_is_written_whole_in_the_order_sent(count: int) -> None:
    sent = rows(count)[::-1]  # ids follow the order sent, not the values
    assert insert_rows(Counter, COLUMNS, sent) == count
    assert stored() == sent


def test_rows_a_conflict_skips_are_not_counted() -> None:
    insert_rows(Counter, COLUMNS, rows(300)[::3])
    assert insert_rows(Counter, COLUMNS, rows(300), on_conflict=SKIP_TAKEN) == 200
    assert sorted(stored()) == rows(300)


@pytest.fixture
def few_parameters() -> Iterator[None]:
    """An SQLite library that takes 100 parameters a statement (999 before 3.32)."""
    if connection.vendor != "sqlite":
        pytest.skip("a limit of SQLite's")
    connection.ensure_connection()
    raw = connection.connection
    limit = raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 100)
    yield
    raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, limit)


def test_rows_past_the_librarys_parameter_limit_are_split_to_fit(few_parameters: None) -> None:
    sent = rows(1000)
    # The columns in another order: statements not prepared before the limit was lowered.
    reordered = [(value, slot, name, project) for project, name, slot, value in sent]
    assert insert_rows(Counter, COLUMNS[::-1], reordered) == 1000
    assert stored() == sent
