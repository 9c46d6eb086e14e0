"""What `python -m bench` reports: the whole detail printed, short blocks in BENCHMARKS.md.

Each block is one run of one database: how it ran, then its figures against their targets
(the baseline of each is in the "measured" column: API / raw, learn/stats / bare view, ...).
Blocks: `<db>` (ingest, stats, WebSocket, uvicorn against daphne), `hot-<db>`, `growth-<db>`,
`workers-<db>`; a run writes the blocks of the sections it ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench.harness.report import DB_TITLE, run_line, table, targets_table, write_marked_block
from bench.live import details
from bench.live.targets import targets

if TYPE_CHECKING:
    from pathlib import Path

MAIN = ("feedback", "experience", "stats", "ws", "servers")


def summary(results: dict[str, Any]) -> str:
    """Every table of the run, for the terminal."""
    meta = results["meta"]
    out = [
        "",
        f"LearnPortal bench on {DB_TITLE[meta['database']]} ({meta['db_version']}), "
        f"server {meta['server']}, {meta['nproc']} x {meta['cpu']}, {meta['seconds']:.0f} s",
        "",
    ]
    if any(results.get(name) for name in MAIN):
        out.append(details.block(results))  # which leads with every section's targets
    else:
        out += [targets_table([list(r) for r in targets(results)]), ""]
    if results.get("hot"):
        out.append(details.hot_block(results))
    if results.get("growth"):
        out.append(details.growth_block(results))
    if results.get("workers"):
        out.append(details.workers_block(results))
    return "\n".join(out)


def server_line(meta: dict[str, Any]) -> str:
    return (
        f"Served by {meta['server']}, `DJANGO_DEBUG={1 if meta['debug'] else 0}`, rate limit off."
    )


def section_block(results: dict[str, Any], sections: tuple[str, ...]) -> str:
    meta = results["meta"]
    part = {"meta": meta} | {name: results[name] for name in sections if results.get(name)}
    lines = [run_line(meta), server_line(meta), "", targets_table([list(r) for r in targets(part)])]
    if "servers" in sections and results.get("servers"):
        lines += ["", servers_line(results["servers"])]
    return "\n".join(lines) + "\n"


def servers_line(servers: dict[str, Any]) -> str:
    """uvicorn against daphne, which has no target: the server `make run` serves with."""
    rows = [
        [
            kind,
            f"{r['seq_rps']:,.0f}",
            f"{r['conc_rps']:,.0f}",
            f"{r['ws_rps']:,.0f}",
            f"{r['ingest_rows_s']:,.0f}",
        ]
        for kind, r in servers.items()
    ]
    concurrency = next(iter(servers.values()))["concurrency"]
    header = [
        "server",
        "small req/s, 1 conn",
        f"{concurrency} conns",
        "WS pipelined",
        "ingest rows/s",
    ]
    return table(header, rows)


def write(path: Path, results: dict[str, Any]) -> None:
    database = results["meta"]["database"]
    if any(results.get(name) for name in MAIN):
        write_marked_block(path, database, section_block(results, MAIN))
    for name in ("hot", "growth", "workers"):
        if results.get(name):
            write_marked_block(path, f"{name}-{database}", section_block(results, (name,)))
