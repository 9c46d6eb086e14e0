"""Every SQLite database gets the same tuning, whether it is the default file or a DATABASE_URL."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.processes import clean_env, python_json

if TYPE_CHECKING:
    from pathlib import Path

READ_TUNING = """
from django.db import connection
with connection.cursor() as cursor:
    pragmas = {
        name: cursor.execute(f"PRAGMA {name}").fetchone()[0]
        for name in (
            "journal_mode", "busy_timeout", "synchronous", "cache_size", "foreign_keys",
            "wal_autocheckpoint",
        )
    }
print(json.dumps({
    **pragmas,
    "transaction_mode": connection.transaction_mode,
    "file": str(connection.settings_dict["NAME"]),
}))
"""

TUNED = {
    "journal_mode": "wal",
    "busy_timeout": 5000,
    "synchronous": 1,  # NORMAL
    "cache_size": -65536,  # 64 MiB
    "foreign_keys": 1,
    "wal_autocheckpoint": 10000,  # pages
    "transaction_mode": "IMMEDIATE",
}


@pytest.mark.parametrize("named_by", ["default file", "DATABASE_URL"])
def test_a_sqlite_database_runs_in_wal_with_the_tuning_however_it_is_named(
    tmp_path: Path, named_by: str
) -> None:
    values = {"DJANGO_DEBUG": "1"}
    if named_by == "DATABASE_URL":
        expected_file = tmp_path / "elsewhere" / "x.sqlite3"
        expected_file.parent.mkdir()
        values["DATABASE_URL"] = f"sqlite:///{expected_file}"
    else:
        expected_file = tmp_path / "var" / "learnportal.sqlite3"

    seen = python_json(READ_TUNING, env=clean_env(tmp_path, **values))

    assert seen.pop("file") == str(expected_file)
    assert seen == TUNED


def test_the_sqlite_busy_timeout_follows_its_setting_for_a_database_url(tmp_path: Path) -> None:
    env = clean_env(
        tmp_path,
        DJANGO_DEBUG="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'x.sqlite3'}",
        LEARNPORTAL_SQLITE_TIMEOUT="12.5",
    )
    assert python_json(READ_TUNING, env=env)["busy_timeout"] == 12500
