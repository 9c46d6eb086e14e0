"""`python -m bench.adapt [--quick]`: the adaptive strategies against MABWiser 2.7.

Fit, regret and end to end, all on data made from one seed (bench/strategies/run.py). Prints
every table and rewrites the `<!-- bench:adapt:... -->` block of BENCHMARKS.md (not with
--quick). MABWiser is a bench-only dependency (`pip install .[bench]`).
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.commands import add_output_argument
from bench.harness.report import RunRecord, rewrite
from bench.strategies import report
from bench.strategies.run import FULL, QUICK, meta, run


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.adapt", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes; writes no file")
    parser.add_argument("--seed", type=int, default=20261, help="seed of the logged data")
    parser.add_argument("--skip-e2e", action="store_true", help="no Django end-to-end part")
    parser.add_argument(
        "--e2e-only", action="store_true", help="only the fit and the end-to-end part (no regret)"
    )
    add_output_argument(parser, "adapt block is")
    parser.add_argument(
        "--report",
        metavar="JSON",
        help="run nothing: render the figures of an earlier run (bench-results/last-adapt.json)",
    )
    parser.add_argument(
        "--size", metavar="ARMS,EXPERIENCES", help="other sizes than --quick's or the full run's"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.report:
        rewrite(args.report, report.summary, report.write, args.output)
        return 0
    try:
        import mabwiser  # noqa: F401
    except ImportError:
        print("bench.adapt needs MABWiser: pip install '.[bench]'", file=sys.stderr)
        return 1
    sizes = dict(QUICK if args.quick else FULL)
    if args.size:
        arms, experiences = (int(x) for x in args.size.split(","))
        sizes |= {"arms": arms, "experiences": experiences}
    record = RunRecord("adapt", argv)
    results = run(sizes, seed=args.seed, regret=not args.e2e_only, e2e=not args.skip_e2e)
    suffix = "-quick" if args.quick else ""
    record.finish(
        results, report.summary, report.write, output=args.output, suffix=suffix,
        quick=args.quick, **meta(sizes, args.seed),
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
