"""`python -m bench.loop [--quick]`: does an agent routed by LearnPortal learn? (issue 8)

A simulated runtime (bench/learning/runtime.py) on a fresh live portal per strategy and seed,
against offline Thompson sampling on the same arms and seeds: success over the last 500 turns,
regret, the final weights, the largest adapt step, and how fast the weights follow a swap of
the best arm (bench/learning/summary.py). `--sweep` runs the parameter sweep behind the
defaults on `ModelHost`, the host's adapt without a database. Rewrites the
`<!-- bench:loop:... -->` block of BENCHMARKS.md (not with --quick); the sweeps are printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bench.harness.report import BENCHMARKS, RunRecord, log, run_line
from bench.learning import report
from bench.learning.summary import TARGETS, live_table, swap_sweep, sweep

FULL: dict[str, Any] = {"turns": 2000, "seeds": [0, 1, 2, 3, 4]}
QUICK: dict[str, Any] = {"turns": 600, "seeds": [0]}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m bench.loop", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="600 turns, one seed")
    parser.add_argument(
        "--sweep", action="store_true", help="only the parameter sweep, on the model of the host"
    )
    parser.add_argument("--output", default=None, help="markdown file ('-': none)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    turns, seeds = sizes["turns"], sizes["seeds"]
    sweeps = not args.quick or args.sweep
    tables = []
    if sweeps:
        tables.append(report.render_sweep(sweep(seeds, turns), seeds, turns))
        tables.append(report.render_swap_sweep(swap_sweep(seeds, turns), seeds, turns))
    if args.sweep:
        print("\n\n".join(tables))
        return 0
    record = RunRecord("loop", argv)
    meta, rows = live_table(seeds, turns, seeds)
    text = report.render(meta, rows, TARGETS["follow"] * turns // 2000)
    print("\n\n".join([text, *tables]))
    output = args.output or ("-" if args.quick else str(BENCHMARKS))
    if output != "-":
        report.write(Path(output), run_line(record.meta()) + "\n\n" + text)
        log(f"wrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
