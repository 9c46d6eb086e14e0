"""The arguments every bench command takes alike: which database, what to keep, where to write."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


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
