"""`python -m bench.workspace`: the annotation workspace at 1M feedback rows and 200k turns.

1. One database (SQLite, or PostgreSQL with --database-url / $DATABASE_URL) with 200k turns and
   1M feedback rows written in bulk with realistic distributions (bench/annotation/data.py).
2. Server time in-process (Django's test client in a process of its own, no socket): median and
   p95 of each endpoint and page; an export streams every row, for its rows/s and peak RSS.
3. Ingest of the same 10k rated turns against Label Studio 1.23.2 (its own venv under
   var/bench/), the servers storing batch by batch in turn (bench/annotation/compare.py).

Prints every figure and rewrites the `workspace-<db>` block of BENCHMARKS.md (not with --quick
or --compare-only).
"""

from __future__ import annotations

import argparse
import sys

from bench.annotation import report
from bench.annotation.run import FULL, QUICK, run
from bench.harness.commands import add_database_arguments, add_output_argument, recorded_run


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.workspace", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="20k turns, 100k rows, 1k compared")
    add_database_arguments(parser)
    parser.add_argument("--no-label-studio", action="store_true", help="skip the comparison")
    parser.add_argument(
        "--compare-only",
        action="store_true",
        help="only the ingest comparison with Label Studio: no 1M build, requests or export",
    )
    parser.add_argument("--export", default="rewards", help="the export format to stream")
    parser.add_argument("--no-export", action="store_true", help="skip the streamed export")
    add_output_argument(parser, "block is")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    # A quick or comparison-only run never replaces the block of a full one.
    suffix = "-quick" if args.quick else "-compare" if args.compare_only else ""
    return recorded_run(
        "workspace",
        argv,
        args,
        lambda database: run(
            database,
            dict(QUICK if args.quick else FULL),
            workspace=not args.compare_only,
            export=None if args.no_export else args.export,
            label_studio=not args.no_label_studio,
        ),
        report,
        suffix,
    )


if __name__ == "__main__":
    raise SystemExit(main())
