"""`python -m bench.judges`: a judge that agrees with people 60% of the time against one that
agrees 95%, weighed by their agreement and counted in full (issue 27, item 5).

Four projects on one database (SQLite, or PostgreSQL with --database-url / $DATABASE_URL), the
same turns of two components in each, scored by one judge each (bench/weighing/run.py); a
softmax adapt after each batch of its feedback. Prints the routing weights and targets each
reaches, the judges' measured weights, and the ingest's price of weighing, and rewrites the
`judges-<db>` block of BENCHMARKS.md (not with --quick).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.commands import add_database_arguments, add_output_argument, recorded_run
from bench.weighing import report
from bench.weighing.run import FULL, QUICK, run


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.judges", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="1,000 turns, batches of 125")
    add_database_arguments(parser)
    add_output_argument(parser, "block is")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    return recorded_run(
        "judges",
        argv,
        args,
        lambda database: run(database, dict(QUICK if args.quick else FULL)),
        report,
        "-quick" if args.quick else "",
    )


if __name__ == "__main__":
    raise SystemExit(main())
