"""The detail of a `python -m bench` run, printed (and rendered again by `--report JSON`): every
table of every section. BENCHMARKS.md gets the short blocks of bench/live/report.py.
"""

from __future__ import annotations

from typing import Any

from bench.harness.report import DB_TITLE, run_line, table
from bench.live.targets import count, growth_targets, targets


def growth_block(results: dict[str, Any]) -> str:
    """The growth run (`python -m bench --only growth`), with the load."""
    meta, r = results["meta"], results["growth"]
    stored = count(r["stored"])
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
        run_line(meta),
        f"{r['batches']} batches of {r['batch']} items of each kind to each database, "
        f"interleaved batch by batch (two warm-up batches each, not counted"
        + ("" if driver else "; no driver's copy between them, `--no-driver`")
        + f"). Seeded {stored} "
        f"rows a table in {seeded}" + (f"; on disk with indexes: {sizes}." if sizes else "."),
        "",
        table(
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
                        count(r["counts"][name][kind]),
                        label,
                        f"{v['executemany_ms']:.1f}",
                        f"{v['commit_ms']:.1f} / {v.get('commit_ms_mean', v['commit_ms']):.1f}",
                    ]
                )
            pages = str(prof["wal_pages_per_commit"])
            at = count(r["counts"][name][kind])
            rows.append([kind, at, "WAL pages one commit wrote", "", "", pages])
        for row in rows:
            row += [""] * (6 - len(row))
        out += [
            "",
            f"The driver's insert of {r['batch']} rows, split (after the timed batches, on both "
            "databases; the rows are the newest under new keys beside the old ones; 12 commits "
            "each; one pragma changed at a time):",
            "",
            table(
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
            table(
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
        table(
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
        run_line(meta),
        f"Load from {client} for {r['seconds']:g} s a run, {r['rounds']} rounds interleaving "
        f"`uvicorn --workers {low}` and `--workers {high}` on one database (order swapped each "
        "round); CPU from /proc over each run, in cores (1.00 = one core busy all the run).",
        "",
        table(
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
        table(
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
        table(
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
    return table(
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
    head += ", timed by the app's stages inside `dispatch()` (each stage's own time, exclusive):"
    rows = [[s["what"], f"{s['ms']:.2f}"] for s in p["steps"] if s["ms"] >= 0.005]
    rows.append(
        [
            "the rest: the services' own Python (hashes, row tuples, deltas, quota), no stage of its own",
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
    return "\n".join([head, "", table(["step", "ms / request"], rows)])


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
        table(["figure", "measured", "target", ""], [list(r) for r in targets(results)], "lllr"),
    ]
    ingest = [results[k] for k in ("feedback", "experience") if results.get(k)]
    if ingest:
        out += [
            "",
            "Ingest (sequential batches on one keep-alive connection; the raw side writes the "
            "same rows, read back from the API's, one commit per batch):",
            "",
            table(
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
            table(
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
            table(
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
            table(["write", *kinds], rows),
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
        table(
            ["variant", "ms / request", "sync/async hops", "threads started", "DB connects"], rows
        ),
        "",
        "As shipped, each hop (awaited = with the thread handoff; ran = inside the sync function):",
        "",
        table(
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
