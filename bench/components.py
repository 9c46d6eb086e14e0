"""`python -m bench.components`: the components pages at 10k and at 1M recorded calls.

On one fresh database (SQLite, or PostgreSQL with --database-url / $DATABASE_URL), calls and
scores go in through the ingest services (bench/pages/record.py); at 10k calls and again at 1M
the list, one component's page and a bare view reading the same rows are timed in-process, and
ingest batches with and without the hour buckets (bench/pages/measure.py). Flat: the page at 1M
costs what it costs at 10k. Prints every figure and rewrites the `components-<db>` block of
BENCHMARKS.md (not with --quick).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.children import run_child, stop_on_sigterm
from bench.harness.commands import add_database_arguments, add_output_argument
from bench.harness.databases import BenchError, Database, app_env, manage
from bench.harness.report import RunRecord, log
from bench.pages import report

FULL = {"small": 10_000, "large": 1_000_000, "requests": 30}
QUICK = {"small": 10_000, "large": 100_000, "requests": 10}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.components", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="100k calls instead of 1M")
    add_database_arguments(parser)
    add_output_argument(parser, "block is")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    stop_on_sigterm()
    database = Database(args.database_url or None, keep=args.keep)
    record = RunRecord("components", argv, database)
    log(f"components bench on {database.kind}")
    try:
        env = app_env(database.create("components"), debug=False)
        manage(env, "migrate", "--no-input", "-v", "0")
        results = run_child(env, "components", **(QUICK if args.quick else FULL))
    except BenchError as exc:
        print(f"bench.components failed: {exc}", file=sys.stderr)
        return 1
    finally:
        database.drop_all()
    suffix = "-quick" if args.quick else ""
    record.finish(results, report.summary, report.write, output=args.output, suffix=suffix)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
