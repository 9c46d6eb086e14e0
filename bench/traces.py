"""`python -m bench.traces`: OTLP trace ingest (issue 25) against LearnPortal's own `/api/turns/`
and Arize Phoenix, on the same agent runs (bench/otlp/run.py says what is measured).

Prints the figures and rewrites the `traces-<db>` block of BENCHMARKS.md (not with --quick).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.commands import add_database_arguments, add_output_argument, recorded_run
from bench.otlp import report
from bench.otlp.run import FULL, QUICK, run


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.traces", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="500 traces a side, not 3,000")
    parser.add_argument("--no-phoenix", action="store_true", help="skip Arize Phoenix")
    add_database_arguments(parser)
    add_output_argument(parser, "block is")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    return recorded_run(
        "traces",
        argv,
        args,
        lambda database: run(
            database, dict(QUICK if args.quick else FULL), phoenix=not args.no_phoenix
        ),
        report,
        "-quick" if args.quick else "",
    )


if __name__ == "__main__":
    raise SystemExit(main())
