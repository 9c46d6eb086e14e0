"""The machine, the summary table, and the per-database block of BENCHMARKS.md."""

from __future__ import annotations

import os
import platform
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from collections.abc import Callable

    from bench.environment import Database

INGEST_TARGET = {"sqlite": 0.5, "postgresql": 0.3}
STATS_TARGET = 2.0
WS_TARGET = 3.0
HOT_TARGET = 0.8  # small learn/* over HTTP against a bare Django JSON view (issue 11)
PIPELINE_TARGET = 2.0  # 100 WebSocket frames in flight against one (issue 11)
GROWTH_TARGET = 1 / 1.3  # ingest rows/s at 2M stored rows within 1.3x of the rate at 0 (issue 11)
WORKERS_TARGET = 1.6  # 2 uvicorn workers against 1 on 2 cores, small requests (issue 11)
ADAPT_LATENCY_TARGET = 2.0  # small requests p95, during an adapt / alone (issue 11)
DB_TITLE = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def machine(database: Database) -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    versions = {}
    for name in ("django", "uvicorn", "daphne", "pydantic", "psycopg", "channels"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:
            versions[name] = "?"
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory": memory,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "db_version": database.version(),
        "versions": versions,
    }


def _count(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


def _calls(point: dict[str, Any]) -> str:
    return _count(point["calls_total"])


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def targets(results: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(figure, measured, target, verdict) for every target above (BENCHMARKS.md's summary)."""
    db = results["meta"]["database"]
    rows = []
    floor = INGEST_TARGET[db]
    for kind in ("feedback", "experience"):
        r = results.get(kind)
        if r:
            rows.append(
                (
                    f"{kind} ingest, API / raw rows/s",
                    f"{r['api_rows_s']:,.0f} / {r['raw_rows_s']:,.0f} = {r['ratio']:.3f}",
                    f">= {floor}",
                    verdict(r["ratio"] >= floor),
                )
            )
    r = results.get("stats")
    if r:
        rows.append(
            (
                f"stats median latency, {_calls(r['large'])} / {_calls(r['small'])} calls",
                f"{r['large']['all_ms_p50']:.2f} / {r['small']['all_ms_p50']:.2f} ms "
                f"= {r['ratio']:.2f}x",
                f"<= {STATS_TARGET}x",
                verdict(r["ratio"] <= STATS_TARGET),
            )
        )
    r = results.get("ws")
    if r:
        best = max(r["http_httpx_rps"], r["http_raw_rps"])
        rows.append(
            (
                "WebSocket / HTTP small requests/s",
                f"{r['ws_pipelined_rps']:,.0f} / {best:,.0f} = {r['ratio']:.2f}x",
                f">= {WS_TARGET}x",
                verdict(r["ratio"] >= WS_TARGET),
            )
        )
    r = results.get("hot")
    if r:
        rows += [
            (
                "HTTP learn/stats / bare Django JSON view, req/s",
                f"{r['http_rps']:,.0f} / {r['bare_rps']:,.0f} = {r['http_over_bare']:.2f}",
                f">= {HOT_TARGET}",
                verdict(r["http_over_bare"] >= HOT_TARGET),
            ),
            (
                f"WebSocket {r['window']} in flight / one in flight, req/s",
                f"{r['ws_window_rps']:,.0f} / {r['ws_one_rps']:,.0f} = {r['window_over_one']:.2f}x",
                f">= {PIPELINE_TARGET}x",
                verdict(r["window_over_one"] >= PIPELINE_TARGET),
            ),
            (
                f"WebSocket {r['window']} in flight / HTTP, req/s",
                f"{r['ws_window_rps']:,.0f} / {r['http_rps']:,.0f} = {r['window_over_http']:.2f}x",
                f">= {WS_TARGET}x",
                verdict(r["window_over_http"] >= WS_TARGET),
            ),
        ]
        a = r.get("adapt")
        if a:
            rows.append(
                (
                    "HTTP learn/stats p95 during an adapt / alone",
                    f"{a['during_ms_p95']:.2f} / {a['alone_ms_p95']:.2f} ms "
                    f"= {a['p95_during_over_alone']:.2f}x",
                    f"<= {ADAPT_LATENCY_TARGET}x",
                    verdict(a["p95_during_over_alone"] <= ADAPT_LATENCY_TARGET),
                )
            )
    rows += growth_targets(results)
    r = results.get("workers")
    if r:
        low, high = r["counts"][0], r["counts"][-1]
        f = r["figures"]
        rows.append(
            (
                f"{high} workers / {low} worker, small learn/stats req/s",
                f"{f[f'stats_{high}']['rps']:,.0f} / {f[f'stats_{low}']['rps']:,.0f} "
                f"= {r['ratio_stats']:.2f}x",
                f">= {WORKERS_TARGET}x",
                verdict(r["ratio_stats"] >= WORKERS_TARGET),
            )
        )
    return rows


def growth_targets(results: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    r = results.get("growth")
    if not r:
        return []
    return [
        (
            f"{kind} ingest rows/s at {_count(r['stored'])} / at 0 stored rows",
            f"{r[kind]['api_rows_s_full']:,.0f} / {r[kind]['api_rows_s_0']:,.0f} "
            f"= {r[kind]['ratio']:.2f}",
            f">= {GROWTH_TARGET:.2f} (within 1.3x)",
            verdict(r[kind]["ratio"] >= GROWTH_TARGET),
        )
        for kind in ("feedback", "experience")
    ]


def _run_line(meta: dict[str, Any]) -> str:
    load = meta.get("load", ["?", "?"])
    return (
        f"Run {meta['started']}, {meta['db_version']}, {meta['server']}, "
        f"`DJANGO_DEBUG={'1' if meta['debug'] else '0'}`, {meta['nproc']} x {meta['cpu']}; "
        f"load average {load[0]} before, {load[1]} after"
        + (" (quick sizes)." if meta.get("quick") else ".")
    )


def growth_block(results: dict[str, Any]) -> str:
    """The growth run (`python -m bench --only growth`), with the load."""
    meta, r = results["meta"], results["growth"]
    stored = _count(r["stored"])
    rows = []
    driver = r.get("driver", True)
    for kind in ("feedback", "experience"):
        k = r[kind]
        rows.append(
            [
                kind,
                f"{k['api_rows_s_0']:,.0f}",
                f"{k['api_rows_s_full']:,.0f}",
                f"**{k['ratio']:.2f}**",
                f"{k['api_batch_ms_p50_0']:.0f} / {k['api_batch_ms_p50_full']:.0f}",
                *((f"{k['raw_rows_s_0']:,.0f}", f"{k['raw_rows_s_full']:,.0f}") if driver else ()),
                *((f"{k['raw_ratio']:.2f}",) if driver else ()),
            ]
        )
    seeded = ", ".join(f"{kind} {sec:.0f} s" for kind, sec in r["seed_seconds"].items())
    sizes = ", ".join(f"`{t}` {mb:,.0f} MB" for t, mb in r["mb_on_disk"].items() if mb >= 0)
    out = [
        _run_line(meta),
        f"{r['batches']} batches of {r['batch']} items of each kind to each database, "
        f"interleaved batch by batch (two warm-up batches each, not counted"
        + ("" if driver else "; no driver's copy between them, `--no-driver`")
        + f"). Seeded {stored} "
        f"rows a table in {seeded}" + (f"; on disk with indexes: {sizes}." if sizes else "."),
        "",
        _table(
            [
                "kind",
                "API rows/s at 0",
                f"API rows/s at {stored}",
                f"{stored} / 0",
                "batch p50 ms, 0 / " + stored,
                *(
                    ["driver rows/s at 0", f"driver rows/s at {stored}", f"driver {stored} / 0"]
                    if driver
                    else []
                ),
            ],
            rows,
        ),
    ]
    profile = r.get("commit_profile") or {}
    if profile:
        rows = []
        for key, prof in profile.items():
            name, kind = key.split()
            for label, v in prof["variants"].items():
                rows.append(
                    [
                        kind,
                        _count(r["counts"][name][kind]),
                        label,
                        f"{v['executemany_ms']:.1f}",
                        f"{v['commit_ms']:.1f} / {v.get('commit_ms_mean', v['commit_ms']):.1f}",
                    ]
                )
            pages = str(prof["wal_pages_per_commit"])
            at = _count(r["counts"][name][kind])
            rows.append([kind, at, "WAL pages one commit wrote", "", "", pages])
        for row in rows:
            row += [""] * (6 - len(row))
        out += [
            "",
            f"The driver's insert of {r['batch']} rows, split (after the timed batches, on both "
            "databases; the rows are the newest under new keys beside the old ones; 12 commits "
            "each; one pragma changed at a time):",
            "",
            _table(
                [
                    "kind",
                    "rows stored",
                    "pragmas",
                    "executemany p50 ms",
                    "COMMIT p50 / mean ms",
                    "pages",
                ],
                rows,
            ),
        ]
    io = r.get("index_io") or {}
    if io:
        touched = sorted(io.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
        out += [
            "",
            f"Index blocks during the timed batches at {stored} (`pg_statio_user_indexes`: "
            "read into shared_buffers / hit there):",
            "",
            _table(
                ["index", "read", "hit", "read share"],
                [
                    [
                        f"`{name}`",
                        f"{read:,}",
                        f"{hit:,}",
                        f"{read / (read + hit):.1%}" if read + hit else "",
                    ]
                    for name, (read, hit) in touched
                    if read + hit
                ],
            ),
        ]
    out += [
        "",
        _table(
            ["figure", "measured", "target", ""], [list(t) for t in growth_targets(results)], "lllr"
        ),
    ]
    return "\n".join(out) + "\n"


def _per_core(r: dict[str, Any], path: str, workers: int) -> float:
    f = r["figures"][f"{path}_{workers}"]
    return float(f["rps"] / (f["server_cores"] + f.get("database_cores", 0)))


def workers_block(results: dict[str, Any]) -> str:
    """The workers run (`python -m bench --only workers`), with the CPU each process used."""
    meta, r = results["meta"], results["workers"]
    database = meta["database"] == "postgresql"
    client = (
        f"`wrk -t1 -c{r['concurrency']}` (HTTP/1.1 keep-alive)"
        if r["client"] == "wrk"
        else f"a multi-process Python client, {r['concurrency']} keep-alive connections"
    )
    rows = []
    for f in sorted(r["figures"].values(), key=lambda f: (f["path"], f["workers"])):
        rows.append(
            [
                "bare Django view" if f["path"] == "bare" else "`learn/stats/req`",
                str(f["workers"]),
                f"{f['rps']:,.0f}",
                ", ".join(f"{x:,.0f}" for x in f["rps_rounds"]),
                f"{f['ms_p50']:.0f}",
                f"{f['server_cores']:.2f} ("
                + " + ".join(f"{c:.2f}" for c in f["per_process_cores"] if c >= 0.005)
                + ")",
                f"{f['client_cores']:.2f}",
                *([f"{f.get('database_cores', 0):.2f}"] if database else []),
                f"{f['machine_cores']:.2f}",
                f"{_per_core(r, f['path'], f['workers']):,.0f}",
            ]
        )
    low, high = r["counts"][0], r["counts"][-1]
    out = [
        _run_line(meta),
        f"Load from {client} for {r['seconds']:g} s a run, {r['rounds']} rounds interleaving "
        f"`uvicorn --workers {low}` and `--workers {high}` on one database (order swapped each "
        "round); CPU from /proc over each run, in cores (1.00 = one core busy all the run).",
        "",
        _table(
            [
                "path",
                "workers",
                "req/s",
                "req/s by round",
                "p50 ms",
                "server cores (by process)",
                "client cores",
                *(["PostgreSQL backends' cores"] if database else []),
                "machine cores busy",
                "req/s per core of server" + (" + backends" if database else ""),
            ],
            rows,
        ),
        "",
        f"{high} / {low} workers: learn/stats {r['ratio_stats']:.2f}x, bare view "
        f"{r['ratio_bare']:.2f}x. Per core the processes got (req/s per core, {high} workers / "
        f"{low}): learn/stats {_per_core(r, 'stats', high) / _per_core(r, 'stats', low):.2f}, "
        f"bare view {_per_core(r, 'bare', high) / _per_core(r, 'bare', low):.2f}.",
    ]
    return "\n".join(out) + "\n"


def hot_block(results: dict[str, Any]) -> str:
    """The hot-path figures of one run (`python -m bench --only hot`), with the load."""
    meta, r = results["meta"], results["hot"]
    load = meta.get("load", ["?", "?"])
    out = [
        f"Run {meta['started']}, {meta['db_version']}, "
        f"{meta['server']}, `DJANGO_DEBUG={'1' if meta['debug'] else '0'}`, "
        f"{meta['nproc']} x {meta['cpu']}; load average {load[0]} before, {load[1]} after.",
        f"{r['requests']:,} small `learn/stats/req` (one component) each way, in {r['rounds']} "
        "interleaved rounds on one server (`bench/baseline_settings.py` adds the bare view).",
        "",
        _table(
            ["path", "req/s", "p50 ms (median of rounds)"],
            [
                [
                    "HTTP, bare Django JSON view (`/bench/bare/`)",
                    f"{r['bare_rps']:,.0f}",
                    f"{r['bare_ms_p50']:.2f}",
                ],
                [
                    "HTTP, `learn/stats/req` (`/api/learn/`)",
                    f"{r['http_rps']:,.0f}",
                    f"{r['http_ms_p50']:.2f}",
                ],
                [
                    "WebSocket, one in flight",
                    f"{r['ws_one_rps']:,.0f}",
                    f"{r['ws_one_ms_p50']:.2f}",
                ],
                [
                    f"WebSocket, {r['window']} in flight",
                    f"{r['ws_window_rps']:,.0f}",
                    f"{r['ws_window_ms_p50']:.2f}",
                ],
            ],
        ),
        "",
        *_adapt_lines(r.get("adapt")),
        _table(
            ["figure", "measured", "target", ""],
            [list(row) for row in targets({"meta": meta, "hot": r})],
            "lllr",
        ),
    ]
    return "\n".join(out) + "\n"


def _adapt_lines(a: dict[str, Any] | None) -> list[str]:
    if not a:
        return []
    return [
        f"While an adapt runs (`learn/adapt/req`, ucb1, {a['components']:,} components, "
        f"{a['experiences']:,} experiences; {a['adapts']} back to back, median "
        f"{a['adapt_s_median']:.2f} s each), small `learn/stats/req` over HTTP on another "
        f"connection, 5 ms apart: p50 / p95 / max {a['during_ms_p50']:.2f} / "
        f"{a['during_ms_p95']:.2f} / {a['during_ms_max']:.1f} ms ({a['during_n']:,} requests), "
        f"against {a['alone_ms_p50']:.2f} / {a['alone_ms_p95']:.2f} ms alone before and after "
        f"({a['alone_n']:,}).",
        "",
    ]


def _table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    align = align or "l" + "r" * (len(header) - 1)
    marks = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def summary(results: dict[str, Any]) -> str:
    meta = results["meta"]
    out = [
        "",
        f"LearnPortal bench on {DB_TITLE[meta['database']]} ({meta['db_version']}), "
        f"server {meta['server']}, {meta['nproc']} x {meta['cpu']}, {meta['seconds']:.0f} s",
        "",
        _table(["figure", "measured", "target", ""], [list(r) for r in targets(results)], "lllr"),
    ]
    if results.get("servers"):
        out += ["", servers_table(results["servers"])]
    return "\n".join(out) + "\n"


def servers_table(servers: dict[str, Any]) -> str:
    rows = []
    for kind, r in servers.items():
        rows.append(
            [
                kind,
                f"{r['seq_rps']:,.0f}",
                f"{r['seq_ms_p50']:.2f} / {r['seq_ms_p99']:.2f}",
                f"{r['conc_rps']:,.0f}",
                f"{r['conc_ms_p50']:.2f} / {r['conc_ms_p99']:.2f}",
                f"{r['ws_rps']:,.0f}",
                f"{r['ingest_rows_s']:,.0f}",
                f"{r['ingest_batch_ms_p50']:.0f}",
            ]
        )
    concurrency = next(iter(servers.values()))["concurrency"]
    return _table(
        [
            "server",
            "small req/s, 1 conn",
            "p50 / p99 ms",
            f"small req/s, {concurrency} conns",
            "p50 / p99 ms",
            "WS req/s (pipelined)",
            "ingest rows/s (1000/batch)",
            "batch p50 ms",
        ],
        rows,
    )


def _profile_block(kind: str, p: dict[str, Any], live_ms: float | None) -> str:
    items = p["items_per_request"]
    head = f"**{kind}**: {p['requests']} requests" + (f" of {items} items" if items else "")
    head += ", timed step by step inside `dispatch()` (each step's own time, exclusive):"
    rows = [[s["what"], f"{s['ms']:.2f}"] for s in p["steps"] if s["ms"] >= 0.005]
    rows.append(
        [
            "the rest: provenance, row tuples, deltas, response envelope, transaction bookkeeping",
            f"{p['ms_rest']:.2f}",
        ]
    )
    rows.append(
        [
            f"**whole `dispatch()`** (of which in the garbage collector: {p['ms_gc']:.2f})",
            f"**{p['ms_dispatch']:.2f}**",
        ]
    )
    rows.append(
        [
            "whole Django + DRF stack in-process (test client, no server)",
            f"{p['ms_django_stack']:.2f}",
        ]
    )
    if live_ms is not None:
        rows.append(["live server, as the client saw it (median)", f"{live_ms:.2f}"])
    return "\n".join([head, "", _table(["step", "ms / request"], rows)])


def block(results: dict[str, Any]) -> str:
    meta = results["meta"]
    db = meta["database"]
    v = meta["versions"]
    out = [
        f"### {DB_TITLE[db]}: {meta['started']}",
        "",
        f"- Machine: {meta['nproc']} x {meta['cpu']}, {meta['memory']} RAM, {meta['os']}; "
        f"Python {meta['python']}; {meta['db_version']}.",
        f"- Stack: Django {v['django']}, pydantic {v['pydantic']}, channels {v['channels']}, "
        f"uvicorn {v['uvicorn']}, daphne {v['daphne']}, psycopg {v['psycopg']}.",
        f"- Command: `{meta['command']}`"
        + (" (quick sizes)" if meta["quick"] else "")
        + f"; took {meta['seconds'] / 60:.1f} min. Server for ingest/stats/ws: {meta['server']}, "
        f"DJANGO_DEBUG={1 if meta['debug'] else 0}, rate limit off. "
        f"Load average (1 min) at start / end: {meta['load'][0]} / {meta['load'][1]} "
        "(a shared machine: compare the ratios, which are measured in one run).",
        "",
        _table(["figure", "measured", "target", ""], [list(r) for r in targets(results)], "lllr"),
    ]
    ingest = [results[k] for k in ("feedback", "experience") if results.get(k)]
    if ingest:
        out += [
            "",
            "Ingest (sequential batches on one keep-alive connection; the raw side writes the "
            "same rows, read back from the API's, one commit per batch):",
            "",
            _table(
                [
                    "kind",
                    "rows",
                    "bytes/item",
                    "API rows/s",
                    "raw rows/s",
                    "ratio",
                    "API batch p50 ms",
                    "raw batch p50 ms",
                ],
                [
                    [
                        r["kind"],
                        f"{r['rows']:,}",
                        f"{r['item_bytes']:.0f}",
                        f"{r['api_rows_s']:,.0f}",
                        f"{r['raw_rows_s']:,.0f}",
                        f"{r['ratio']:.3f}",
                        f"{r['api_batch_ms_p50']:.1f}",
                        f"{r['raw_batch_ms_p50']:.1f}",
                    ]
                    for r in ingest
                ],
            ),
        ]
    r = results.get("stats")
    if r:
        out += [
            "",
            f"Stats (`learn/stats/req` over HTTP, {r['requests']} sequential requests a point; "
            f"calls recorded in-process through `experience_store` at {r['seed_calls_s']:,.0f} "
            "calls/s):",
            "",
            _table(
                [
                    "recorded calls",
                    "components",
                    "all components p50 / p95 ms",
                    "one component p50 / p95 ms",
                ],
                [
                    [
                        f"{point['calls_total']:,}",
                        str(point["components"]),
                        f"{point['all_ms_p50']:.2f} / {point['all_ms_p95']:.2f}",
                        f"{point['one_ms_p50']:.2f} / {point['one_ms_p95']:.2f}",
                    ]
                    for point in (r["small"], r["large"])
                ],
            ),
        ]
    r = results.get("ws")
    if r:
        out += [
            "",
            f"WebSocket against HTTP ({r['requests']:,} `learn/stats/req` for one component):",
            "",
            _table(
                ["transport", "req/s", "p50 ms"],
                [
                    [
                        "HTTP, httpx keep-alive, sequential",
                        f"{r['http_httpx_rps']:,.0f}",
                        f"{r['http_httpx_ms_p50']:.2f}",
                    ],
                    [
                        "HTTP, http.client keep-alive, sequential",
                        f"{r['http_raw_rps']:,.0f}",
                        f"{r['http_raw_ms_p50']:.2f}",
                    ],
                    [
                        "WebSocket, one in flight",
                        f"{r['ws_sequential_rps']:,.0f}",
                        f"{r['ws_sequential_ms_p50']:.2f}",
                    ],
                    [
                        f"WebSocket, pipelined ({r['window']} in flight)",
                        f"{r['ws_pipelined_rps']:,.0f}",
                        "",
                    ],
                ],
            ),
        ]
        w = r.get("whatif")
        if w:
            out += [
                "",
                f"What-if, a second server on the same database whose only change is "
                f"`CONN_MAX_AGE=None` (`bench/whatif_settings.py`; {w['requests']:,} requests "
                f"each): HTTP {w['http_raw_rps']:,.0f} req/s, WebSocket one in flight "
                f"{w['ws_sequential_rps']:,.0f} req/s, pipelined {w['ws_pipelined_rps']:,.0f} "
                f"req/s, ratio {w['ratio']:.2f}x.",
            ]
    if results.get("servers"):
        out += [
            "",
            "uvicorn against daphne (`learn/stats/req` small requests; 1000-feedback batches):",
            "",
            servers_table(results["servers"]),
        ]
    profiles = results.get("profiles") or {}
    if profiles:
        out += ["", "Where the time goes (in-process, the same database):", ""]
        for kind, p in profiles.items():
            live = None
            if kind in ("feedback", "experience") and results.get(kind):
                live = results[kind]["api_batch_ms_p50"]
            elif kind == "stats" and results.get("ws"):
                live = results["ws"]["http_raw_ms_p50"]
            out += [_profile_block(kind, p, live), ""]
    variants = results.get("insert_variants")
    if variants:
        out += [insert_block(variants), ""]
    probe = results.get("asgi_probe")
    if probe:
        out += [asgi_block(probe), ""]
    return "\n".join(out).rstrip() + "\n"


INSERT_LABELS = {
    "django_executemany": "`feedback.bulk.insert_rows`: Django cursor `executemany` (as shipped)",
    "multi_row_values": "one `INSERT ... VALUES (...), (...), ...` through the Django cursor",
    "driver_executemany": "sqlite3 `executemany` on the raw connection",
    "driver_copy": "psycopg `COPY ... FROM STDIN` on the raw connection",
}


def insert_block(variants: dict[str, Any]) -> str:
    kinds = list(variants)
    names = list(next(iter(variants.values()))["ms"])
    rows = [
        [INSERT_LABELS.get(name, name)] + [f"{variants[k]['ms'][name]:.1f}" for k in kinds]
        for name in names
    ]
    return "\n".join(
        [
            "**the INSERT itself**: the same 1000 rows (copied from the API's) written each way "
            "in its own transaction, interleaved, median of 5 (ms per 1000 rows, with COMMIT):",
            "",
            _table(["write", *kinds], rows),
        ]
    )


ASGI_VARIANTS = {
    "shipped": "as shipped: Django ASGIHandler, 8 middleware, DRF view",
    "conn_max_age_none": "what-if: CONN_MAX_AGE=None (SQLite; PostgreSQL has its pool)",
    "no_middleware": "what-if: MIDDLEWARE=[] (on SQLite, with the row above)",
    "one_hop_dispatch": "what-if: authenticate once, `dispatch()` in one hop (as /ws/learn/ does)",
}


def asgi_block(probe: dict[str, Any]) -> str:
    rows = [
        [
            label,
            f"{probe[key]['ms']:.2f}",
            f"{probe[key]['hops']:.0f}",
            f"{probe[key]['threads']:.0f}",
            f"{probe[key]['connects']:.0f}",
        ]
        for key, label in ASGI_VARIANTS.items()
        if key in probe
    ]
    lines = [
        "**small HTTP request through the ASGI app in-process** (`learn/stats/req` for one "
        "component, no socket; what-ifs change one setting in the probe process only):",
        "",
        _table(
            ["variant", "ms / request", "sync/async hops", "threads started", "DB connects"], rows
        ),
        "",
        "As shipped, each hop (awaited = with the thread handoff; ran = inside the sync function):",
        "",
        _table(
            ["sync_to_async of", "per request", "ms awaited", "ms ran"],
            [
                [
                    f"`{h['what']}`",
                    f"{h['per_request']:.0f}",
                    f"{h['ms_awaited']:.3f}",
                    f"{h['ms_ran']:.3f}",
                ]
                for h in probe["shipped"]["by_hop"]
            ],
        ),
    ]
    return "\n".join(lines)


def write(path: Path, results: dict[str, Any]) -> None:
    database = results["meta"]["database"]
    if results.get("hot"):
        write_marked_block(path, f"hot-{database}", hot_block(results))
    if results.get("growth"):
        write_marked_block(path, f"growth-{database}", growth_block(results))
    if results.get("workers"):
        write_marked_block(path, f"workers-{database}", workers_block(results))
    if any(results.get(name) for name in ("feedback", "experience", "stats", "ws", "servers")):
        write_marked_block(path, database, block(results))


def write_marked_block(path: Path, name: str, body: str) -> None:
    """Replace the block between this name's markers, or append it; nothing else changes."""
    start, end = f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"
    content = f"{start}\n{body}{end}"
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _m: content, text)
    else:
        text = text.rstrip() + "\n\n" + content + "\n"
    path.write_text(text)


class RunRecord:
    """What a bench module's run records about itself: its command, when it started and the load
    average then; `finish` adds the machine and writes the results out."""

    def __init__(self, name: str, database: Database, argv: list[str]) -> None:
        self.name = name
        self.database = database
        self.command = " ".join([f"python -m bench.{name}", *argv])
        self.started = time.time()
        self.load_before = os.getloadavg()

    def finish(
        self,
        results: dict[str, Any],
        render: Callable[[dict[str, Any]], str],
        *,
        output: str | None,
        suffix: str = "",
    ) -> str:
        """The results' meta (machine, command, time, load average before and after), the block
        `render` makes of them (printed), the raw figures in
        bench-results/last-<name>-<database><suffix>.json, and the marked block
        `<name>-<database>` of BENCHMARKS.md. A run with a suffix (quick, partial) writes no
        block unless `output` names a file; '-' writes none."""
        from bench.environment import ROOT
        from bench.sections import log

        kind = self.database.kind
        results["meta"] = machine(self.database) | {
            "command": self.command,
            "database": kind,
            "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.started)),
            "seconds": time.time() - self.started,
            "load": [round(self.load_before[0], 2), round(os.getloadavg()[0], 2)],
        }
        text = render(results)
        print("\n" + text)
        out_dir = ROOT / "bench-results"
        out_dir.mkdir(exist_ok=True)
        raw_path = out_dir / f"last-{self.name}-{kind}{suffix}.json"
        raw_path.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))
        log(f"raw figures in {raw_path.relative_to(ROOT)}")
        output = output or ("-" if suffix else str(ROOT / "BENCHMARKS.md"))
        if output != "-":
            write_marked_block(Path(output), f"{self.name}-{kind}", text)
            log(f"wrote {output}")
        return text
