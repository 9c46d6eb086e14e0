"""The targets of `python -m bench` (issues 2 and 11) and each run's rows against them."""

from __future__ import annotations

from typing import Any

from bench.harness.report import verdict

# API / raw rows/s. Issue 11 (item 3) raised PostgreSQL's from issue 2's 0.3 when the raw side
# began to write a table of its own.
INGEST_TARGET = {"sqlite": 0.5, "postgresql": 0.4}
STATS_TARGET = 2.0
WS_TARGET = 3.0
HOT_TARGET = 0.8  # small learn/* over HTTP against a bare Django JSON view (issue 11)
PIPELINE_TARGET = 2.0  # 100 WebSocket frames in flight against one (issue 11)
GROWTH_TARGET = 1 / 1.3  # ingest rows/s at 2M stored rows within 1.3x of the rate at 0 (issue 11)
WORKERS_TARGET = 1.6  # 2 uvicorn workers against 1 on 2 cores, small requests (issue 11)
ADAPT_LATENCY_TARGET = 2.0  # small requests p95, during an adapt / alone (issue 11)


def count(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


def calls(point: dict[str, Any]) -> str:
    return count(point["calls_total"])


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
                f"stats median latency, {calls(r['large'])} / {calls(r['small'])} calls",
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
            f"{kind} ingest rows/s at {count(r['stored'])} / at 0 stored rows",
            f"{r[kind]['api_rows_s_full']:,.0f} / {r[kind]['api_rows_s_0']:,.0f} "
            f"= {r[kind]['ratio']:.2f}",
            f">= {GROWTH_TARGET:.2f} (within 1.3x)",
            verdict(r[kind]["ratio"] >= GROWTH_TARGET),
        )
        for kind in ("feedback", "experience")
    ]
