"""`python -m bench.comparisons`: 100k comparisons judged side by side (issue 26).

1. One database (SQLite, or PostgreSQL with --database-url / $DATABASE_URL): a project and its
   judges made through the services, 100,000 comparisons of two candidates (10% of three), 60%
   judged by the two people each needs and 10% by one, written in bulk as the services write
   them (bench/judging/build.py); then checked through the services.
2. Server time in-process: the most active judge's rounds (queue next, the judging page, a
   judgment) and a reviewer's leaderboard and agreement, median and p95 of each
   (bench/judging/probes.py), against the issue's p95 under 100 ms.

Prints every figure and rewrites the `comparisons-<db>` block of BENCHMARKS.md (not with
--quick).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.commands import add_database_arguments, add_output_argument, recorded_run
from bench.judging import report
from bench.judging.run import FULL, QUICK, run


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.comparisons", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="5,000 comparisons, 40 rounds")
    add_database_arguments(parser)
    add_output_argument(parser, "block is")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    return recorded_run(
        "comparisons",
        argv,
        args,
        lambda database: run(database, dict(QUICK if args.quick else FULL)),
        report,
        "-quick" if args.quick else "",
    )


if __name__ == "__main__":
    raise SystemExit(main())
