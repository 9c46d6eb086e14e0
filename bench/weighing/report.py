"""What `python -m bench.judges` reports, and in BENCHMARKS.md its block (`judges-<db>`)
under "Judges weighed by agreement (issue 27)"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench.harness.report import run_line, table, targets_table, verdict, write_marked_block
from bench.weighing.run import GOOD_SHARE, STRATEGY

if TYPE_CHECKING:
    from pathlib import Path

MEASURABLY_LESS = 0.75  # the 60% judge's move at most three quarters of the 95% one's
HEADING = "### Judges weighed by agreement (issue 27)"
INTRO = (
    "Two components, `good` (a turn of it good 60% of the time) and `bad` (40%); one judge a "
    "project (an environment credential) scores every turn, saying the truth on 60% or 95% of "
    "them, else the opposite. Weighed: people rated a calibration sample first, then the project "
    "weighs judges (`judges_weighed`). Baseline, in the same run: the same feedback counted in "
    "full (the project weighs judges but the judge is not measured, as a pipeline that takes a "
    "judge's score for a reward). A softmax adapt (applied through the trust region) follows each "
    "batch of the judge's feedback, through the services in-process (bench/weighing/run.py). "
    "Targets (the issue): the 60% judge moves routing measurably less than the 95% one, weighed; "
    "and weighing widens that difference over the baseline's. The ingest's price: the same "
    "batches where nothing is weighed."
)


def _case(results: dict[str, Any], slug: str) -> dict[str, Any]:
    return next(c for c in results["cases"] if c["case"]["slug"] == slug)


def _ratio(low: float, high: float) -> float:
    return low / high if high else float("inf")


def targets(results: dict[str, Any]) -> list[list[str]]:
    weighed = _ratio(_case(results, "weighed-60")["gap"], _case(results, "weighed-95")["gap"])
    in_full = _ratio(_case(results, "in-full-60")["gap"], _case(results, "in-full-95")["gap"])
    price = _ratio(_case(results, "weighed-95")["rows_s"], _case(results, "unweighed-95")["rows_s"])
    return [
        [
            "weight gap good - bad, the 60% judge / the 95% one, weighed",
            f"{weighed:.2f}",
            f"< {MEASURABLY_LESS}",
            verdict(weighed < MEASURABLY_LESS),
        ],
        [
            "the same, counted in full (baseline)",
            f"{in_full:.2f}",
            f"> {weighed:.2f} (weighed's)",
            verdict(in_full > weighed),
        ],
        ["ingest rows/s weighed / nothing weighed", f"{price:.2f}", "(none)", ""],
    ]


def cases_table(results: dict[str, Any]) -> str:
    rows = []
    for case in results["cases"]:
        c = case["case"]
        weight = case["judge_weight"]
        shown = (
            "in full"
            if weight is None
            else f"{weight:.2f} (alpha {case['judge_alpha']:.2f}, {case['judge_items']} items)"
        )
        if "gap" in case:
            moved = f"{case['gap']:.3f} ({' → '.join(f'{g:.2f}' for g in case['steps'][::2])})"
            target = f"{case['target_gap']:.3f}"
        else:
            moved = target = "(not weighed: no evidence)"
        rows.append(
            [c["slug"], f"{c['agreement']:.0%}", shown, moved, target, f"{case['rows_s']:,.0f}"]
        )
    return table(
        [
            "project",
            "judge agrees",
            "its weight",
            "weight gap after the adapts",
            "target gap",
            "ingest rows/s",
        ],
        rows,
        "lrlllr",
    )


def block(results: dict[str, Any]) -> str:
    sizes = results["sizes"]
    data = (
        f"Data: {sizes['turns']:,} turns a project ({', '.join(f'{k} {v:.0%} good' for k, v in GOOD_SHARE.items())}), "
        f"scored in batches of {sizes['batch']}, a {STRATEGY} adapt after each; calibration "
        f"{sizes['calibration']} turns rated by people and the judge."
    )
    lines = [
        run_line(results["meta"]),
        data,
        "",
        targets_table(targets(results)),
        "",
        cases_table(results),
    ]
    return "\n".join(lines) + "\n"


def summary(results: dict[str, Any]) -> str:
    return block(results)


def write(path: Path, results: dict[str, Any]) -> None:
    write_marked_block(
        path,
        f"judges-{results['meta']['database']}",
        block(results),
        heading=f"{HEADING}\n\n{INTRO}",
    )
