"""What `python -m bench.projects` reports: every request of the two projects timed, and in
BENCHMARKS.md its block (`projects-<db>`) under "Projects and rubrics (issue 24)".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench.annotation.report import TARGET_MS, compare_lines
from bench.annotation.report import targets as workspace_targets
from bench.harness.report import run_line, table, targets_table, verdict, write_marked_block
from bench.teams.probes import GROUPS

if TYPE_CHECKING:
    from pathlib import Path

HEADING = "### Projects and rubrics (issue 24)"
INTRO = (
    "20 projects, each with a rubric of its own (the five kinds of question among them) and "
    "members drawn from one pool of people, and 1,000,000 ratings over them, Zipf-distributed "
    "(the largest project about 28%, the smallest 1.4%), written in bulk as the ratings "
    "service writes them: a `Rating` row and its feedback rows (bench/teams/build.py), then "
    "checked through the services. Each request is timed in-process (Django's test client, "
    "`DJANGO_DEBUG=0`) in the smallest project and the largest, by its most active "
    "annotator (rounds of queue next, the queue page, the rating page and a rating) and its "
    "reviewer. Target: p95 under 100 ms each. The ingest comparison is the workspace's, into a "
    "database holding the 20 projects, their rubrics and members."
)


def _data_line(built: dict[str, Any], timed: list[str]) -> str:
    projects = built["projects"]
    small, big = (projects[slug] for slug in timed)
    return (
        f"Data: {len(projects)} projects, {built['turns']:,} turns, {built['ratings']:,} "
        f"ratings ({built['feedback']:,} feedback rows); timed: {timed[0]} ({small['rubric']} "
        f"rubric, {small['ratings']:,} ratings, {small['ratings_per_turn']} a turn) and "
        f"{timed[1]} ({big['rubric']}, {big['ratings']:,}, {big['ratings_per_turn']} a turn). "
        f"Built in {built['insert_s']:.0f} s ({built['rows_s']:,.0f} rows/s), moments and "
        f"counters recounted in {built['recount_s']:.0f} s; checked: "
        f"{built['verified']['ratings']:,} counted ratings, the queue fields of "
        f"{built['verified']['queue_fields']} turns, and one rating of each rubric through "
        f"`rating_record` stored as the bench's rows."
    )


def _ms(figures: dict[str, Any] | None) -> str:
    if not figures or "ms_p95" not in figures:
        return "—"
    return f"{figures['ms_p50']:.1f} / {figures['ms_p95']:.1f} ({figures['n']})"


def requests_table(results: dict[str, Any]) -> str:
    """Each request: median / p95 ms (n) in the small project and the large one."""
    small, big = (results["requests"][slug] for slug in results["timed"])
    rows = []
    for labels in GROUPS.values():
        for label in labels:
            worst = max(f.get("ms_p95", 0.0) for f in (small.get(label), big.get(label)) if f)
            rows.append(
                [label, _ms(small.get(label)), _ms(big.get(label)), verdict(worst < TARGET_MS)]
            )
    header = ["request", f"{results['timed'][0]}: ms p50 / p95 (n)", f"{results['timed'][1]}", ""]
    return table(header, rows, "lrrr")


def targets(results: dict[str, Any]) -> list[list[str]]:
    """(figure, measured, target, verdict): each of the issue's four, its slowest request's p95
    in each project; then the ingest against Label Studio."""
    rows = []
    if "requests" in results:
        small, big = (results["requests"][slug] for slug in results["timed"])
        for group, labels in GROUPS.items():
            measured = []
            worst = 0.0
            for name, figures in zip(results["timed"], (small, big), strict=True):
                timed = {k: figures[k] for k in labels if "ms_p95" in figures.get(k, {})}
                label, slowest = max(timed.items(), key=lambda kv: kv[1]["ms_p95"])
                worst = max(worst, slowest["ms_p95"])
                measured.append(f"{name} {slowest['ms_p95']:.1f} ms ({label})")
            rows.append(
                [f"{group}, slowest p95", "; ".join(measured), f"< {TARGET_MS:.0f} ms",
                 verdict(worst < TARGET_MS)]
            )  # fmt: skip
    rows += workspace_targets({"compare": results.get("compare") or {}})
    return rows


def summary(results: dict[str, Any]) -> str:
    lines = [run_line(results["meta"]), ""]
    if "built" in results:
        lines += [_data_line(results["built"], results["timed"]), "", requests_table(results), ""]
    lines += ["", compare_lines(results.get("compare") or {})]
    return "\n".join(lines) + "\n"


def block(results: dict[str, Any]) -> str:
    lines = [run_line(results["meta"])]
    if "built" in results:
        lines.append(_data_line(results["built"], results["timed"]))
    lines += ["", targets_table(targets(results))]
    if "requests" in results:
        lines += ["", requests_table(results)]
    return "\n".join(lines) + "\n"


def write(path: Path, results: dict[str, Any]) -> None:
    write_marked_block(
        path,
        f"projects-{results['meta']['database']}",
        block(results),
        heading=f"{HEADING}\n\n{INTRO}",
    )
