"""One run of `python -m bench.comparisons`: the comparisons built on a fresh database, then a
judge's rounds and a reviewer's reads timed, in this process.

The house runs a task inside the app's process through bench/child.py (bench.harness.children);
its list of tasks is not this bench's to extend, so this bench points its own process's Django at
the section's database once (`in_app`): `child_build` and `child_measure` are written as tasks
of bench/child.py would be (keyword arguments, a JSON-able result), to move there as they are.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from bench.harness.databases import BenchError, app_env, manage
from bench.harness.report import log

if TYPE_CHECKING:
    from bench.harness.databases import Database

SEED = 26
FULL = {"comparisons": 100_000, "rounds": 200}
QUICK = {"comparisons": 5_000, "rounds": 40}


def in_app(env: dict[str, str]) -> None:
    """Django set up in this process on the database `env` names, as bench/child.py sets up
    a child's: once a process."""
    import django
    from django.conf import settings

    if settings.configured:
        raise BenchError("Django is set up in this process already: one database a run")
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
    django.setup()


def _closed() -> None:
    """This process's connections closed (a PostgreSQL pool too), before its database is dropped."""
    from django.db import connections

    for connection in connections.all():
        connection.close()
        close_pool = getattr(connection, "close_pool", None)
        if close_pool is not None:
            close_pool()


def run(database: Database, sizes: dict[str, Any]) -> dict[str, Any]:
    env = app_env(database.create("comparisons"), debug=False)
    manage(env, "migrate", "--no-input", "-v", "0")
    in_app(env)
    from bench.judging.build import child_build
    from bench.judging.probes import child_measure

    log(f"comparisons: building {sizes['comparisons']:,} comparisons")
    results: dict[str, Any] = {"sizes": sizes}
    results["built"] = child_build(comparisons=sizes["comparisons"], seed=SEED)
    b = results["built"]
    log(f"comparisons: built in {b['insert_s']:.0f} s ({b['rows_s']:,.0f} rows/s); {b['verified']}")
    results["requests"] = child_measure(rounds=sizes["rounds"], seed=SEED)
    _closed()
    database.drop(env)
    return results
