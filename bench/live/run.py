"""The sections of `python -m bench`, their sizes, and one run of them on one kind of database.

Sections: feedback and experience ingest (100 x 1000 items through POST /api/learn/, against
the driver's bulk insert of the same rows), stats at 10k and 1M recorded calls, WebSocket
against HTTP (10k small requests), uvicorn against daphne, the hot path against a bare Django
view, small requests on 1 and 2 uvicorn workers, and, only when named, ingest at 0 and at 2M
stored rows. Each section runs on fresh databases and servers of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.harness.children import run_child
from bench.harness.report import log
from bench.harness.servers import SERVERS, Stack
from bench.live import growth, ingest, requests, workers

if TYPE_CHECKING:
    from bench.harness.databases import Database

SECTIONS = ("feedback", "experience", "stats", "ws", "servers", "hot", "workers", "growth")


# growth seeds 2M rows a table (2-4 min on SQLite, 10 on PostgreSQL at this machine's load):
# run it by name, `python -m bench --only growth`.
DEFAULT_SECTIONS = tuple(s for s in SECTIONS if s != "growth")


FULL = {
    "ingest_batches": 100,
    "batch": 1000,
    "stats_small": 10_000,
    "stats_large": 1_000_000,
    "stats_requests": 500,
    "ws_requests": 10_000,
    "ws_window": 100,
    "server_small": 3000,
    "server_concurrency": 8,
    "server_batches": 20,
    "server_ws": 5000,
    "profile_batches": 5,
    "hot_requests": 5000,
    "hot_rounds": 5,
    "growth_stored": 2_000_000,
    "growth_batches": 30,
    "workers_rounds": 4,
    "workers_seconds": 6,
    "workers_concurrency": 16,
}
QUICK = {
    "ingest_batches": 10,
    "batch": 1000,
    "stats_small": 10_000,
    "stats_large": 100_000,
    "stats_requests": 200,
    "ws_requests": 2000,
    "ws_window": 100,
    "server_small": 1000,
    "server_concurrency": 8,
    "server_batches": 5,
    "server_ws": 1000,
    "profile_batches": 2,
    "hot_requests": 1000,
    "hot_rounds": 2,
    "growth_stored": 50_000,
    "growth_batches": 4,
    "workers_rounds": 2,
    "workers_seconds": 2,
    "workers_concurrency": 8,
}


@dataclass(frozen=True)
class Options:
    sections: tuple[str, ...] = DEFAULT_SECTIONS
    quick: bool = False
    server: str = "uvicorn"  # for the ingest, stats, ws and hot sections
    debug: bool = False  # DJANGO_DEBUG=1
    driver: bool = True  # growth: the driver's copy of each batch beside the API's


def run(options: Options, database: Database) -> dict[str, Any]:
    """Every section named in `options`, in turn; their figures, by section."""
    sizes = QUICK if options.quick else FULL
    results: dict[str, Any] = {"sizes": sizes, "profiles": {}}

    def stack(label: str, server: str | None = None) -> Stack:
        return Stack(database, label, server_kind=server or options.server, debug=options.debug)

    for kind in ("feedback", "experience"):
        if kind not in options.sections:
            continue
        with stack(kind) as s:
            meta = run_child(s.env, "meta")
            results[kind] = ingest.ingest(s, kind, sizes["ingest_batches"], sizes["batch"], meta)
            r = results[kind]
            log(
                f"{kind}: API {r['api_rows_s']:,.0f} rows/s, raw {r['raw_rows_s']:,.0f} rows/s, "
                f"ratio {r['ratio']:.3f}"
            )
            log(f"{kind}: profiling the request path in-process")
            results["profiles"][kind] = ingest.profile(
                s, kind, sizes["profile_batches"], sizes["batch"]
            )
            log(f"{kind}: the same 1000 rows written four ways, in-process")
            results.setdefault("insert_variants", {})[kind] = run_child(
                s.env, "insert_variants", kind=kind
            )
    if "stats" in options.sections:
        with stack("stats") as s:
            results["stats"] = requests.stats(
                s, sizes["stats_small"], sizes["stats_large"], sizes["stats_requests"]
            )
    if "ws" in options.sections:
        with stack("ws") as s:
            results["ws"] = requests.ws_vs_http(s, sizes["ws_requests"], sizes["ws_window"])
            r = results["ws"]
            log(
                f"ws: HTTP {max(r['http_httpx_rps'], r['http_raw_rps']):,.0f} req/s, "
                f"WebSocket {r['ws_pipelined_rps']:,.0f} req/s, ratio {r['ratio']:.2f}"
            )
            results["profiles"]["stats"] = ingest.profile(s, "stats", 500, 0)
            log("ws: probing the ASGI path of a small HTTP request in-process")
            results["asgi_probe"] = run_child(s.env, "asgi_probe", token=s.tokens["agent"])
    if "hot" in options.sections:
        with Stack(
            database,
            "hot",
            server_kind=options.server,
            debug=options.debug,
            settings_module="bench.baseline_settings",
        ) as s:
            results["hot"] = requests.hot(
                s, sizes["hot_requests"], sizes["hot_rounds"], sizes["ws_window"]
            )
            r = results["hot"]
            log(
                f"hot: bare {r['bare_rps']:,.0f} req/s, learn/stats {r['http_rps']:,.0f} "
                f"({r['http_over_bare']:.2f}); WebSocket one in flight {r['ws_one_rps']:,.0f}, "
                f"{r['window']} in flight {r['ws_window_rps']:,.0f} "
                f"({r['window_over_one']:.2f}x one, {r['window_over_http']:.2f}x HTTP)"
            )
    if "growth" in options.sections:
        results["growth"] = growth.growth(
            database,
            server_kind=options.server,
            debug=options.debug,
            stored=sizes["growth_stored"],
            batches=sizes["growth_batches"],
            size=sizes["batch"],
            driver=options.driver,
        )
        for kind in growth.KINDS:
            r = results["growth"][kind]
            log(
                f"growth: {kind} {r['api_rows_s_full']:,.0f} rows/s at "
                f"{sizes['growth_stored']:,} stored, {r['api_rows_s_0']:,.0f} at 0: "
                f"{r['ratio']:.2f} (driver {r['raw_ratio']:.2f})"
            )
    if "workers" in options.sections:
        if options.server != "uvicorn":
            log("workers: uvicorn only (daphne serves one process); skipped")
        else:
            results["workers"] = workers.workers(
                database,
                debug=options.debug,
                rounds=sizes["workers_rounds"],
                seconds=sizes["workers_seconds"],
                concurrency=sizes["workers_concurrency"],
            )
            r = results["workers"]
            log(
                f"workers: 2 / 1 workers, learn/stats {r['ratio_stats']:.2f}x, "
                f"bare {r['ratio_bare']:.2f}x"
            )
    if "servers" in options.sections:
        results["servers"] = {}
        for kind in SERVERS:
            with stack(f"server-{kind}", kind) as s:
                results["servers"][kind] = requests.server(
                    s,
                    sizes["server_small"],
                    sizes["server_concurrency"],
                    sizes["server_batches"],
                    sizes["server_ws"],
                )
    return results
