"""What `python -m bench.workspace` reports: every request printed, and in BENCHMARKS.md its
block (`workspace-<db>`): how it ran and its figures against their targets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

from typing import Any

from bench.annotation.data import BATCH
from bench.harness.report import (
    run_line,
    table,
    targets_table,
    verdict,
    write_marked_block,
)

TARGET_MS = 100.0
TARGET_RSS_MB = 200.0
COMPARE_GOAL = 25.0


def verdict_ms(figures: dict[str, Any]) -> str:
    if "ms_p50" not in figures:
        return "—"
    return verdict(figures["ms_p95"] < TARGET_MS)


def summary(results: dict[str, Any]) -> str:
    """Every request of the run, the export and the comparison, for the terminal."""
    meta = results["meta"]
    if "built" not in results:  # --compare-only
        head = f"Comparison only. {run_line(meta)}"
        return "\n".join([head, "", compare_lines(results.get("compare") or {})]) + "\n"
    built = results["built"]
    lines = [
        run_line(meta),
        "",
        f"- Data: {built['turns']:,} turns, {built['feedback']:,} feedback rows "
        f"({built['human']:,} human ratings on {built['human_turns']:,} turns, "
        f"{built['corrections_with_span']:,} corrections with a span), built in "
        f"{built['insert_s']:.0f} s ({built['rows_s']:,.0f} rows/s, bulk insert), then "
        f"agreement's moments and the counters recounted from them in "
        f"{built.get('recount_s', 0):.1f} s (`manage.py feedback_recount`).",
        "",
        "Server time in-process (Django test client, no socket; DJANGO_DEBUG=0), "
        f"target p95 under {TARGET_MS:.0f} ms:",
        "",
    ]
    rows = []
    for label, figures in results["requests"].items():
        if "ms_p50" in figures:
            rows.append(
                [
                    label,
                    f"{figures['ms_p50']:.1f}",
                    f"{figures['ms_p95']:.1f}",
                    str(figures["n"]),
                    verdict_ms(figures),
                ]
            )
        else:
            rows.append([label, "—", "—", "0", "not routed yet"])
    lines.append(table(["request", "ms p50", "ms p95", "n", ""], rows, "lrrrr"))
    export = results.get("export") or {}
    lines += ["", "Export of every row, streamed, in a process of its own:", ""]
    if "rows_s" in export:
        lines.append(
            f"- `{export['kind']}`: {export['rows']:,} lines in {export['seconds']:.1f} s = "
            f"{export['rows_s']:,.0f} rows/s; peak RSS {export['rss_peak_mb']:.0f} MB "
            f"(after start-up: {export['rss_before_mb']:.0f} MB; target under "
            f"{TARGET_RSS_MB:.0f} MB) {verdict(export['rss_peak_mb'] < TARGET_RSS_MB)}."
        )
    else:
        lines.append(f"- {export.get('skipped', 'not run')}.")
    lines += ["", compare_lines(results.get("compare") or {})]
    return "\n".join(lines) + "\n"


def compare_lines(compare: dict[str, Any]) -> str:
    if not compare:
        return "Label Studio comparison: not run (--no-label-studio)."
    sides = [compare[k] for k in ("learnportal", "learnportal_split") if k in compare]
    if not sides:  # the sides run interleaved: without Label Studio none was measured
        return f"Label Studio comparison: not measured: {compare['label_studio'].get('error', '?')}"
    head = (
        f"Ingest of the same {sides[0]['rows']:,} rated turns (a turn and one human rating "
        f"each; batches of {BATCH}, sequential on each side, the sides interleaved batch by batch, after one warm-up batch):"
    )
    rows = [
        [f"LearnPortal: {s['requests']}", f"{s['rows_s']:,.0f}", f"{s['batch_ms_p50']:.0f}",
         s["server"]]
        for s in sides
    ]  # fmt: skip
    ls = compare["label_studio"]
    if "rows_s" in ls:
        rows.append(
            [
                f"Label Studio {ls['version']}: POST /api/projects/<id>/import with annotations",
                f"{ls['rows_s']:,.0f}",
                f"{ls['batch_ms_p50']:.0f}",
                ls["server"],
            ]
        )
        tail = "; ".join(
            f"LearnPortal ({s['requests']}) / Label Studio = **{s['rows_s'] / ls['rows_s']:.1f}x** "
            f"{verdict(s['rows_s'] / ls['rows_s'] >= COMPARE_GOAL)}"
            for s in sides
        )
        tail += f" (goal {COMPARE_GOAL:.0f}x)."
    else:
        tail = f"Label Studio could not be measured here: {ls.get('error', '?')}"
    sides_table = table(["side", "rows/s", "batch ms p50", "server"], rows, "lrrl")
    return "\n".join([head, "", sides_table, "", tail])


def targets(results: dict[str, Any]) -> list[list[str]]:
    """(figure, measured, target, verdict) for issue 9's targets, of what the run measured."""
    rows = []
    timed = {k: v for k, v in (results.get("requests") or {}).items() if "ms_p95" in v}
    if timed:
        label, slowest = max(timed.items(), key=lambda kv: kv[1]["ms_p95"])
        rows.append(
            [
                f"slowest p95 of the {len(timed)} endpoints and pages timed",
                f"{slowest['ms_p95']:.1f} ms ({label})",
                f"< {TARGET_MS:.0f} ms",
                verdict(slowest["ms_p95"] < TARGET_MS),
            ]
        )
    export = results.get("export") or {}
    if "rows_s" in export:
        rows.append(
            [
                f"export `{export['kind']}` of every row, peak RSS",
                f"{export['rss_peak_mb']:.0f} MB ({export['rows']:,} lines, "
                f"{export['rows_s']:,.0f} rows/s)",
                f"< {TARGET_RSS_MB:.0f} MB",
                verdict(export["rss_peak_mb"] < TARGET_RSS_MB),
            ]
        )
    compare = results.get("compare") or {}
    ls = compare.get("label_studio", {})
    for key in ("learnportal", "learnportal_split"):
        side = compare.get(key)
        if side and "rows_s" in ls:
            ratio = side["rows_s"] / ls["rows_s"]
            rows.append(
                [
                    f"ingest of rated turns, LearnPortal ({side['requests']}) / Label Studio "
                    f"{ls['version']}, rows/s",
                    f"{side['rows_s']:,.0f} / {ls['rows_s']:,.0f} = {ratio:.1f}x",
                    f">= {COMPARE_GOAL:.0f}x",
                    verdict(ratio >= COMPARE_GOAL),
                ]
            )
    return rows


def block(results: dict[str, Any]) -> str:
    """The block of BENCHMARKS.md: how the run went, and its figures against their targets."""
    meta, built = results["meta"], results.get("built")
    lines = [run_line(meta)]
    if built:
        lines.append(
            f"Data: {built['turns']:,} turns, {built['feedback']:,} feedback rows "
            f"({built['human']:,} human ratings on {built['human_turns']:,} turns)."
        )
    return "\n".join([*lines, "", targets_table(targets(results))]) + "\n"


def write(path: Path, results: dict[str, Any]) -> None:
    write_marked_block(path, f"workspace-{results['meta']['database']}", block(results))
