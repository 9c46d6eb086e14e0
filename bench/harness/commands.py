"""What every bench command does alike: its arguments (which database, what to keep, where to
write) and its recorded run."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from bench.harness.children import stop_on_sigterm
from bench.harness.databases import BenchError, Database
from bench.harness.report import RunRecord, log

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable


def add_database_arguments(parser: argparse.ArgumentParser) -> None:
    """--database-url (a PostgreSQL server's admin URL; SQLite without one) and --keep."""
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", ""),
        help="a PostgreSQL server's admin URL (default: $DATABASE_URL; unset: SQLite). The bench "
        "creates fresh databases learnportal_bench_<pid>_<n> there and drops them at the end.",
    )
    parser.add_argument("--keep", action="store_true", help="keep the bench databases and logs")


def add_output_argument(parser: argparse.ArgumentParser, blocks: str) -> None:
    """--output: the markdown file whose blocks the run replaces."""
    parser.add_argument(
        "--output",
        default=None,
        help=f"the markdown file whose {blocks} replaced (default: BENCHMARKS.md, or none with "
        "--quick; '-' for none)",
    )


def recorded_run(
    name: str,
    argv: list[str],
    args: argparse.Namespace,
    measure: Callable[[Database], dict[str, Any]],
    report: Any,
    suffix: str = "",
) -> int:
    """A bench command's run on the database its arguments name: `measure` it (every database
    it made dropped afterwards, unless --keep), then print, keep and write its figures
    (`report.summary`, `report.write`; a run with a suffix writes no block but to --output)."""
    stop_on_sigterm()
    database = Database(args.database_url or None, keep=args.keep)
    record = RunRecord(name, argv, database)
    log(f"{name} bench on {database.kind}")
    try:
        results = measure(database)
    except BenchError as exc:
        print(f"bench.{name} failed: {exc}", file=sys.stderr)
        return 1
    finally:
        database.drop_all()
    record.finish(results, report.summary, report.write, output=args.output, suffix=suffix)
    return 0
