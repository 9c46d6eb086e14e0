"""`python -m bench.projects`: 20 projects, each with its own rubric and members, and 1M ratings.

1. One database (SQLite, or PostgreSQL with --database-url / $DATABASE_URL): the projects,
   rubrics and members made through the services, the turns and ratings (a Rating row and its
   feedback rows each) written in bulk as the ratings service writes them, chunk by chunk, one
   seed (bench/teams/build.py); then checked through the services.
2. Server time in-process, in the smallest project and the largest: an annotator's rounds
   (queue next, the queue page, the rating page, a rating) and a reviewer's reads (explorer,
   agreement), median and p95 of each (bench/teams/probes.py).
3. Ingest of the same 10k rated turns against Label Studio 1.23.2, as `bench.workspace` runs it,
   into a database holding the 20 projects (bench/annotation/run.py).

Prints every figure and rewrites the `projects-<db>` block of BENCHMARKS.md (not with --quick
or --compare-only).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.commands import add_database_arguments, add_output_argument, recorded_run
from bench.teams import report
from bench.teams.run import FULL, QUICK, run


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.projects", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="40k ratings, 1k compared")
    add_database_arguments(parser)
    parser.add_argument("--no-label-studio", action="store_true", help="skip the comparison")
    parser.add_argument(
        "--compare-only", action="store_true", help="only the ingest comparison with Label Studio"
    )
    add_output_argument(parser, "block is")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    # A quick or comparison-only run never replaces the block of a full one.
    suffix = "-quick" if args.quick else "-compare" if args.compare_only else ""
    return recorded_run(
        "projects",
        argv,
        args,
        lambda database: run(
            database,
            dict(QUICK if args.quick else FULL),
            timing=not args.compare_only,
            label_studio=not args.no_label_studio,
        ),
        report,
        suffix,
    )


if __name__ == "__main__":
    raise SystemExit(main())
