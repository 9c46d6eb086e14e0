"""One run of `python -m bench.workspace`: the 1M workspace (build, requests, export) and the
ingest comparison with Label Studio, the three servers interleaved batch by batch.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from bench.annotation.compare import interleaved, learnportal_side
from bench.annotation.data import BATCH, rated_turns
from bench.annotation.label_studio import LabelStudioUnavailable, label_studio_side
from bench.annotation.report import COMPARE_GOAL
from bench.harness.children import run_child
from bench.harness.databases import Database, app_env, manage
from bench.harness.report import log

if TYPE_CHECKING:
    from collections.abc import Callable

FULL = {"turns": 200_000, "feedback": 1_000_000, "requests": 15, "compare_turns": 10_000}
QUICK = {"turns": 20_000, "feedback": 100_000, "requests": 7, "compare_turns": 1_000}


def _workspace(
    database: Database, sizes: dict[str, Any], export: str | None, results: dict[str, Any]
) -> None:
    """The 1M workspace: build it, time its requests, stream an export."""
    env = app_env(database.create("workspace"), debug=False)
    manage(env, "migrate", "--no-input", "-v", "0")
    log(f"workspace: building {sizes['turns']:,} turns and {sizes['feedback']:,} feedback rows")
    results["built"] = run_child(
        env, "workspace_build", turns=sizes["turns"], feedback=sizes["feedback"], seed=7
    )
    b = results["built"]
    log(f"workspace: built in {b['insert_s']:.0f} s ({b['rows_s']:,.0f} rows/s)")
    results["requests"] = run_child(env, "workspace_measure", requests=sizes["requests"])
    if export is None:
        results["export"] = {"skipped": "not run (--no-export)"}
    else:
        log(f"workspace: streaming the {export} export")
        results["export"] = run_child(env, "workspace_export", kind=export) | {"kind": export}
    if "rows_s" in results["export"]:
        e = results["export"]
        log(f"export: {e['rows_s']:,.0f} rows/s, peak RSS {e['rss_peak_mb']:.0f} MB")
    database.drop(env)


def label_studio_compare(
    database: Database, turns: int, setup: Callable[[dict[str, str]], str] | None = None
) -> dict[str, Any]:
    """The same `turns` rated turns stored by LearnPortal (one call a batch, and the turns sent
    first; `setup` fills its database and names the project: bench.annotation.compare) and by
    Label Studio, batch by batch in turn; {} but Label Studio's error if it cannot run."""
    # One more batch than counted: the first is a warm-up on either side.
    items = rated_turns(turns + BATCH)
    batches = len(items) // BATCH
    log(f"ingest: {len(items):,} rated turns, batch by batch, interleaved on three servers")
    try:
        with contextlib.ExitStack() as servers:
            running = {
                name: servers.enter_context(
                    learnportal_side(database, items, split=split, setup=setup)
                )
                for name, split in (("learnportal", False), ("learnportal_split", True))
            }
            running["label_studio"] = servers.enter_context(label_studio_side(items))
            measured = interleaved(running, batches)
        ls = measured.pop("label_studio")
        for side in measured.values():
            log(
                f"ingest: Label Studio {ls['rows_s']:,.0f} rows/s; LearnPortal "
                f"({side['requests']}) {side['rows_s']:,.0f} = "
                f"{side['rows_s'] / ls['rows_s']:.1f}x (goal {COMPARE_GOAL:.0f}x)"
            )
    except LabelStudioUnavailable as exc:
        log(f"ingest: Label Studio unavailable: {exc}")
        measured, ls = {}, {"error": str(exc)}
    return measured | {"label_studio": ls}


def run(
    database: Database,
    sizes: dict[str, Any],
    *,
    workspace: bool = True,
    export: str | None = "rewards",
    label_studio: bool = True,
) -> dict[str, Any]:
    """The workspace (unless `workspace` is off; `export` None: no export), then the comparison
    (unless `label_studio` is off)."""
    results: dict[str, Any] = {"sizes": sizes}
    if workspace:
        _workspace(database, sizes, export, results)
    if label_studio:
        results["compare"] = label_studio_compare(database, sizes["compare_turns"])
    return results
