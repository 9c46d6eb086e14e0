"""`python -m bench`: LearnPortal's benchmarks on a live server, against the targets in bench/report.py.

Sections: feedback and experience ingest (100 x 1000 items through POST /api/learn/, against the
driver's bulk insert of the same rows), stats at 10k and 1M recorded calls, WebSocket against
HTTP (10k small requests), uvicorn against daphne, the hot path against a bare Django view,
small requests on 1 and 2 uvicorn workers (bench/workers.py), and, only when named, ingest at 0
and at 2M stored rows (bench/growth.py). Each section runs on fresh databases and servers of its
own; figures are printed and written to BENCHMARKS.md (see its Method section).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from bench import growth, report, sections, workers
from bench.environment import ROOT, SERVERS, BenchError, Database, Stack, inproc
from bench.sections import log

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


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--only",
        default=",".join(DEFAULT_SECTIONS),
        help=f"comma-separated sections to run, of {','.join(SECTIONS)} (default: all but growth)",
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", ""),
        help="a PostgreSQL server's admin URL (default: $DATABASE_URL; unset: SQLite). The bench "
        "creates fresh databases learnportal_bench_<pid>_<n> there and drops them at the end.",
    )
    parser.add_argument(
        "--server",
        choices=SERVERS,
        default="uvicorn",
        help="the server for the ingest, stats and ws sections (default: uvicorn, as make run)",
    )
    parser.add_argument(
        "--debug", action="store_true", help="serve with DJANGO_DEBUG=1 (default: production mode)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the bench databases and logs")
    parser.add_argument(
        "--no-driver",
        action="store_true",
        help="growth: no driver's copy of each batch (on SQLite its writes drop the server's "
        "page cache)",
    )
    parser.add_argument(
        "--report",
        metavar="JSON",
        help="run nothing: render the figures of an earlier run (bench-results/last-*.json)",
    )
    parser.add_argument(
        "--output",
        default=None,
        help="the markdown file whose block for this database is replaced (default: "
        "BENCHMARKS.md, or none with --quick; '-' for none)",
    )
    args = parser.parse_args(argv)
    args.sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    return args


def run(args: argparse.Namespace, database: Database) -> dict[str, Any]:
    sizes = QUICK if args.quick else FULL
    results: dict[str, Any] = {"sizes": sizes, "profiles": {}}

    def stack(label: str, server: str | None = None) -> Stack:
        return Stack(database, label, server_kind=server or args.server, debug=args.debug)

    for kind in ("feedback", "experience"):
        if kind not in args.sections:
            continue
        with stack(kind) as s:
            meta = inproc(s.env, "meta")
            results[kind] = sections.ingest(s, kind, sizes["ingest_batches"], sizes["batch"], meta)
            r = results[kind]
            log(
                f"{kind}: API {r['api_rows_s']:,.0f} rows/s, raw {r['raw_rows_s']:,.0f} rows/s, "
                f"ratio {r['ratio']:.3f}"
            )
            log(f"{kind}: profiling the request path in-process")
            results["profiles"][kind] = sections.profile(
                s, kind, sizes["profile_batches"], sizes["batch"]
            )
            log(f"{kind}: the same 1000 rows written four ways, in-process")
            results.setdefault("insert_variants", {})[kind] = inproc(
                s.env, "insert_variants", kind=kind
            )
    if "stats" in args.sections:
        with stack("stats") as s:
            results["stats"] = sections.stats(
                s, sizes["stats_small"], sizes["stats_large"], sizes["stats_requests"]
            )
    if "ws" in args.sections:
        with stack("ws") as s:
            results["ws"] = sections.ws_vs_http(s, sizes["ws_requests"], sizes["ws_window"])
            r = results["ws"]
            log(
                f"ws: HTTP {max(r['http_httpx_rps'], r['http_raw_rps']):,.0f} req/s, "
                f"WebSocket {r['ws_pipelined_rps']:,.0f} req/s, ratio {r['ratio']:.2f}"
            )
            results["profiles"]["stats"] = sections.profile(s, "stats", 500, 0)
            log("ws: probing the ASGI path of a small HTTP request in-process")
            results["asgi_probe"] = inproc(s.env, "asgi_probe", token=s.tokens["agent"])
    if "hot" in args.sections:
        with Stack(
            database,
            "hot",
            server_kind=args.server,
            debug=args.debug,
            settings_module="bench.baseline_settings",
        ) as s:
            results["hot"] = sections.hot(
                s, sizes["hot_requests"], sizes["hot_rounds"], sizes["ws_window"]
            )
            r = results["hot"]
            log(
                f"hot: bare {r['bare_rps']:,.0f} req/s, learn/stats {r['http_rps']:,.0f} "
                f"({r['http_over_bare']:.2f}); WebSocket one in flight {r['ws_one_rps']:,.0f}, "
                f"{r['window']} in flight {r['ws_window_rps']:,.0f} "
                f"({r['window_over_one']:.2f}x one, {r['window_over_http']:.2f}x HTTP)"
            )
    if "growth" in args.sections:
        results["growth"] = growth.growth(
            database,
            server_kind=args.server,
            debug=args.debug,
            stored=sizes["growth_stored"],
            batches=sizes["growth_batches"],
            size=sizes["batch"],
            driver=not args.no_driver,
        )
        for kind in growth.KINDS:
            r = results["growth"][kind]
            log(
                f"growth: {kind} {r['api_rows_s_full']:,.0f} rows/s at "
                f"{sizes['growth_stored']:,} stored, {r['api_rows_s_0']:,.0f} at 0: "
                f"{r['ratio']:.2f} (driver {r['raw_ratio']:.2f})"
            )
    if "workers" in args.sections:
        if args.server != "uvicorn":
            log("workers: uvicorn only (daphne serves one process); skipped")
        else:
            results["workers"] = workers.workers(
                database,
                debug=args.debug,
                rounds=sizes["workers_rounds"],
                seconds=sizes["workers_seconds"],
                concurrency=sizes["workers_concurrency"],
            )
            r = results["workers"]
            log(
                f"workers: 2 / 1 workers, learn/stats {r['ratio_stats']:.2f}x, "
                f"bare {r['ratio_bare']:.2f}x"
            )
    if "servers" in args.sections:
        results["servers"] = {}
        for kind in SERVERS:
            with stack(f"server-{kind}", kind) as s:
                results["servers"][kind] = sections.server(
                    s,
                    sizes["server_small"],
                    sizes["server_concurrency"],
                    sizes["server_batches"],
                    sizes["server_ws"],
                )
    return results


def _terminate(signum: int, _frame: object) -> None:
    # Turn SIGTERM into an exception so that every server and database is cleaned up.
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report:
        results = orjson.loads(Path(args.report).read_bytes())
        print(report.summary(results))
        output = args.output or str(ROOT / "BENCHMARKS.md")
        if output != "-":
            report.write(Path(output), results)
            log(f"wrote {output}")
        return 0
    signal.signal(signal.SIGTERM, _terminate)
    load_before = os.getloadavg()
    try:
        database = Database(args.database_url or None, keep=args.keep)
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    command = "python -m bench " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    log(f"bench on {database.kind}; sections: {', '.join(args.sections)}")
    started = time.time()
    try:
        results = run(args, database)
    except BenchError as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        return 1
    finally:
        database.drop_all()
    results["meta"] = report.machine(database) | {
        "command": command.strip(),
        "database": database.kind,
        "server": args.server,
        "debug": args.debug,
        "quick": args.quick,
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "seconds": time.time() - started,
        "load": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
    }
    print(report.summary(results))
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    raw_path = out_dir / f"last-{database.kind}{'-quick' if args.quick else ''}.json"
    raw_path.write_text(sections.dumps(results))
    log(f"raw figures in {raw_path.relative_to(ROOT)}")
    output = args.output or ("-" if args.quick else str(ROOT / "BENCHMARKS.md"))
    if output != "-":
        report.write(Path(output), results)
        log(f"wrote {output}")
    return 0
