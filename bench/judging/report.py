"""What `python -m bench.comparisons` reports: every request timed, against the issue's target,
and in BENCHMARKS.md its block (`comparisons-<db>`) under "Comparisons at 100k (issue 26)".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench.annotation.report import TARGET_MS
from bench.harness.report import run_line, table, targets_table, verdict, write_marked_block
from bench.judging.data import NEEDED
from bench.judging.probes import READS, TARGETED
from bench.teams.report import _ms

if TYPE_CHECKING:
    from pathlib import Path

HEADING = "### Comparisons at 100k (issue 26)"
INTRO = (
    "One project, 100,000 comparisons sent to be judged side by side (90% of two candidates, "
    "10% of three), each needing two distinct judges' judgments: the oldest 60% judged by both, "
    "the next 10% by one, the newest 30% by nobody yet, by six judges of unequal activity; "
    "written in bulk as the services write them: `Comparison` rows with their "
    "`judgments_needed`, `Candidate` rows, `Judgment` rows with the order shown to their judge "
    "and the ranks, 1% of the open ones skipped (bench/judging/build.py), then checked "
    "through the services. Timed in-process (Django's test client, `DJANGO_DEBUG=0`): the most "
    "active judge's rounds, each a fresh lease (`POST /api/queue/next/?kind=comparison`), the "
    "judging page `/compare/` showing it and the judgment (`POST "
    "/api/comparisons/<id>/judgments/`, a preference of two or a ranking of three), while "
    "the other judges hold a lease each; and a reviewer's `GET /api/leaderboard/` and `GET "
    "/api/agreement/`, which read every judgment (reported, no target). Target (the issue): "
    "p95 under 100 ms for the queue, the judging page and the judgment. No baseline in the "
    "same run: the house has no ready in-process view without middleware for these reads "
    "(bench/teams states none either), so the figures are absolute, against the 100 ms."
)


def _data_line(built: dict[str, Any], requests: dict[str, Any]) -> str:
    stages = built["verified"]["stages"]
    judged, begun, untouched = (stages.get(str(n), 0) for n in (0, NEEDED - 1, NEEDED))
    rounds = requests["figures"].get(TARGETED[0], {}).get("n", 0)
    return (
        f"Data: {built['comparisons']:,} comparisons ({built['of_three']:,} of three; "
        f"{built['candidates']:,} candidates), {built['judgments']:,} judgments by "
        f"{built['judges']} judges, {NEEDED} needed a comparison: {judged:,} judged by all it "
        f"needs, {begun:,} by one, {untouched:,} by nobody; {built['skips']:,} skips. Built in "
        f"{built['insert_s']:.0f} s ({built['rows_s']:,.0f} rows/s); checked: the "
        f"`judgments_needed` of all {built['verified']['needed']:,} comparisons as "
        f"`comparisons_recount` works it out, {built['verified']['drawn_again']} comparisons "
        "drawn again from the seed, and a preference of two and a ranking of three through "
        f"`judgment_record` stored as the bench's rows. Timed: {rounds} rounds of the most "
        f"active judge (one warm-up before), the {requests['others_leased']} others holding a "
        f"lease each; load average {requests['load'][0]} when the timing began."
    )


def _p95(figures: dict[str, Any] | None) -> float | None:
    return figures["ms_p95"] if figures and "ms_p95" in figures else None


def targets(results: dict[str, Any]) -> list[list[str]]:
    """(figure, measured, target, verdict): the queue, the page and the judgment against the
    issue's 100 ms; the reviewer's two reads with no target."""
    figures = results["requests"]["figures"]
    rows = []
    for label in TARGETED:
        p95 = _p95(figures.get(label))
        if p95 is None:
            said = figures.get(label, {}).get("skipped", "not measured")
            rows.append([f"{label}, p95", f"not measured ({said})", f"< {TARGET_MS:.0f} ms", ""])
            continue
        rows.append(
            [f"{label}, p95", f"{p95:.1f} ms", f"< {TARGET_MS:.0f} ms", verdict(p95 < TARGET_MS)]
        )
    for label in READS:
        found = figures[label]
        rows.append([f"{label}, p95", f"{found['ms_p95']:.1f} ms", "(none)", ""])
    return rows


def requests_table(results: dict[str, Any]) -> str:
    figures = results["requests"]["figures"]
    rows = []
    for label in (*TARGETED, *READS):
        p95 = _p95(figures.get(label))
        mark = verdict(p95 < TARGET_MS) if p95 is not None and label in TARGETED else ""
        rows.append([label, _ms(figures.get(label)), mark])
    return table(["request", "ms p50 / p95 (n)", ""], rows, "lrr")


def block(results: dict[str, Any]) -> str:
    lines = [run_line(results["meta"]), _data_line(results["built"], results["requests"])]
    lines += ["", targets_table(targets(results)), "", requests_table(results)]
    return "\n".join(lines) + "\n"


def summary(results: dict[str, Any]) -> str:
    """What the terminal shows: the block."""
    return block(results)


def write(path: Path, results: dict[str, Any]) -> None:
    write_marked_block(
        path,
        f"comparisons-{results['meta']['database']}",
        block(results),
        heading=f"{HEADING}\n\n{INTRO}",
    )
