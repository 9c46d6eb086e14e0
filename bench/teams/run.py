"""One run of `python -m bench.projects`: the 20 projects built and their requests timed, then the
ingest comparison with Label Studio (bench.annotation's) into a database holding the projects.
"""

from __future__ import annotations

from typing import Any

from bench.annotation.run import label_studio_compare
from bench.harness.children import run_child
from bench.harness.databases import Database, app_env, manage
from bench.harness.report import log
from bench.teams.data import plan

SEED = 24
FULL = {"projects": 20, "ratings": 1_000_000, "requests": 40, "compare_turns": 10_000}
QUICK = {"projects": 20, "ratings": 40_000, "requests": 8, "compare_turns": 1_000}


def timed_projects(sizes: dict[str, Any]) -> list[str]:
    """The smallest project and the largest (`plan` orders them largest first)."""
    plans = plan(sizes["projects"], sizes["ratings"], SEED)
    return [plans[-1].slug, plans[0].slug]


def _projects(database: Database, sizes: dict[str, Any], results: dict[str, Any]) -> None:
    env = app_env(database.create("projects"), debug=False)
    manage(env, "migrate", "--no-input", "-v", "0")
    log(f"projects: building {sizes['projects']} projects, {sizes['ratings']:,} ratings")
    counts = {k: sizes[k] for k in ("projects", "ratings")}
    results["built"] = run_child(env, "projects_build", **counts, seed=SEED)
    b = results["built"]
    log(f"projects: built in {b['insert_s']:.0f} s ({b['rows_s']:,.0f} rows/s); {b['verified']}")
    results["requests"] = run_child(
        env,
        "projects_measure",
        **counts,
        seed=SEED,
        slugs=timed_projects(sizes),
        requests=sizes["requests"],
    )
    database.drop(env)


def run(
    database: Database, sizes: dict[str, Any], *, timing: bool = True, label_studio: bool = True
) -> dict[str, Any]:
    """The projects and their requests (unless `timing` is off), then the comparison (unless
    `label_studio` is off), its LearnPortal side storing into the largest project's ingest."""
    results: dict[str, Any] = {"sizes": sizes, "timed": timed_projects(sizes)}
    if timing:
        _projects(database, sizes, results)
    if label_studio:
        counts = {k: sizes[k] for k in ("projects", "ratings")}
        into = plan(sizes["projects"], sizes["ratings"], SEED)[0].slug

        def setup(env: dict[str, str]) -> str:
            run_child(env, "projects_only", **counts, seed=SEED)
            return into

        results["compare"] = label_studio_compare(database, sizes["compare_turns"], setup)
    return results
