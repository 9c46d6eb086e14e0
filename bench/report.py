"""The machine, the summary table, and the per-database block of BENCHMARKS.md."""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.environment import Database

INGEST_TARGET = {"sqlite": 0.5, "postgresql": 0.3}
STATS_TARGET = 2.0
WS_TARGET = 3.0
HOT_TARGET = 0.8  # small learn/* over HTTP against a bare Django JSON view (issue 11)
PIPELINE_TARGET = 2.0  # 100 WebSocket frames in flight against one (issue 11)
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


def _calls(point: dict[str, Any]) -> str:
    n = point["calls_total"]
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


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
    return rows


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
