"""`python -m bench`: LearnPortal on a live server against the targets of issues 2 and 11.

The sections, their sizes and what each measures: bench/live/run.py. Figures are printed, kept
whole in bench-results/last-<database>.json, and written as short blocks into BENCHMARKS.md
(not with --quick).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.children import stop_on_sigterm
from bench.harness.commands import add_database_arguments, add_output_argument
from bench.harness.databases import BenchError, Database
from bench.harness.report import RunRecord, log, rewrite
from bench.harness.servers import SERVERS
from bench.live import report
from bench.live.run import DEFAULT_SECTIONS, SECTIONS, Options, run


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
    add_database_arguments(parser)
    parser.add_argument(
        "--server",
        choices=SERVERS,
        default="uvicorn",
        help="the server for the ingest, stats and ws sections (default: uvicorn, as make run)",
    )
    parser.add_argument(
        "--debug", action="store_true", help="serve with DJANGO_DEBUG=1 (default: production mode)"
    )
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
    add_output_argument(parser, "blocks for this database are")
    args = parser.parse_args(argv)
    args.sections = tuple(s.strip() for s in args.only.split(",") if s.strip())
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.report:
        rewrite(args.report, report.summary, report.write, args.output)
        return 0
    stop_on_sigterm()
    try:
        database = Database(args.database_url or None, keep=args.keep)
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    record = RunRecord("bench", argv, database)
    log(f"bench on {database.kind}; sections: {', '.join(args.sections)}")
    options = Options(args.sections, args.quick, args.server, args.debug, not args.no_driver)
    try:
        results = run(options, database)
    except BenchError as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        return 1
    finally:
        database.drop_all()
    record.finish(
        results,
        report.summary,
        report.write,
        output=args.output,
        suffix="-quick" if args.quick else "",
        server=args.server,
        debug=args.debug,
        quick=args.quick,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
