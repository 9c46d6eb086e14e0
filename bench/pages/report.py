"""What `python -m bench.components` reports: every request printed, and in BENCHMARKS.md its
block (`components-<db>`): how it ran and its figures against the target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench.harness.report import (
    run_line,
    table,
    targets_table,
    verdict,
    write_marked_block,
)
from bench.pages.measure import PROBES
from bench.pages.record import BATCH, COMPONENTS, REVISIONS, SHOWN

if TYPE_CHECKING:
    from pathlib import Path


FLAT_GOAL = 1.5  # the page at 1M calls within 1.5x its time at 10k


def summary(results: dict[str, Any]) -> str:
    """Every request at both sizes and the ingest what-if, for the terminal."""
    meta, small, large = results["meta"], results["small"], results["large"]
    lines = [
        run_line(meta),
        "",
        f"- Data: {len(COMPONENTS)} components; calls and scores (one a fifth of the calls) "
        f"through the ingest services, over 60 days; {REVISIONS:,} revisions of `{SHOWN}`'s "
        f"weight. At the large point: {large['experiences']:,} experiences, "
        f"{large['feedback']:,} feedback rows, {large['buckets']:,} hourly buckets; recorded at "
        f"{(large['calls'] - small['calls']) / large['record_s']:,.0f} calls/s (with their "
        "scores).",
        "",
        "Server time in-process (Django test client, no socket; DJANGO_DEBUG=0), median "
        "(p95) in ms:",
        "",
    ]
    rows = []
    for label in PROBES:
        a, b = small["requests"][label], large["requests"][label]
        rows.append(
            [
                label,
                f"{a['ms_p50']:.1f} ({a['ms_p95']:.1f})",
                f"{b['ms_p50']:.1f} ({b['ms_p95']:.1f})",
                f"{b['ms_p50'] / a['ms_p50']:.2f}x",
            ]
        )
    calls = f"{small['calls'] / 1e3:g}k", f"{large['calls'] / 1e6:g}M"
    lines.append(
        table(
            ["request", f"at {calls[0]} calls", f"at {calls[1]} calls", "large / small"],
            rows,
            "lrrr",
        )
    )
    page = large["requests"][f"page /components/{SHOWN}/"]
    bare = large["requests"][f"bare view, same rows ({SHOWN})"]
    ratio = page["ms_p50"] / small["requests"][f"page /components/{SHOWN}/"]["ms_p50"]
    lines += [
        "",
        f"- The component page at {calls[1]} calls against {calls[0]}: **{ratio:.2f}x** "
        f"{verdict(ratio <= FLAT_GOAL)} (flat: within {FLAT_GOAL}x).",
        f"- The page against the bare read of the same rows, at {calls[1]}: "
        f"{page['ms_p50'] / bare['ms_p50']:.1f}x (what rendering the page, its charts and "
        "its session add).",
    ]
    for share in results.get("ingest", []):
        lines.append(
            f"- What keeping the buckets adds to ingest, a batch of {BATCH:,} calls and "
            f"{BATCH:,} scores over {share['hours']} hour(s) of 10 components: "
            f"{share['with_ms']:.1f} ms with the bucket upserts, {share['without_ms']:.1f} ms "
            f"without (median of {share['batches']} each, alternating): "
            f"{100 * (share['with_ms'] / share['without_ms'] - 1):+.1f}%."
        )
    return "\n".join(lines) + "\n"


def targets(results: dict[str, Any]) -> list[list[str]]:
    """The component page at the large size against the small (issue 10: flat)."""
    small, large = results["small"], results["large"]
    page = f"page /components/{SHOWN}/"
    a, b = small["requests"][page]["ms_p50"], large["requests"][page]["ms_p50"]
    bare = f"bare view, same rows ({SHOWN})"
    return [
        [
            f"component page median, {large['calls'] / 1e6:g}M / {small['calls'] / 1e3:g}k calls",
            f"{b:.1f} / {a:.1f} ms = {b / a:.2f}x (the bare read of the same rows: "
            f"{large['requests'][bare]['ms_p50'] / small['requests'][bare]['ms_p50']:.2f}x)",
            f"<= {FLAT_GOAL}x",
            verdict(b / a <= FLAT_GOAL),
        ]
    ]


def block(results: dict[str, Any]) -> str:
    """The block of BENCHMARKS.md: how the run went, and its figure against the target."""
    lines = [run_line(results["meta"])]
    for share in results.get("ingest", []):
        lines.append(
            f"Keeping the hour buckets costs an ingest batch of {BATCH:,} calls and scores over "
            f"{share['hours']} hour(s) {100 * (share['with_ms'] / share['without_ms'] - 1):+.1f}% "
            f"({share['with_ms']:.1f} against {share['without_ms']:.1f} ms)."
        )
    return "\n".join([*lines, "", targets_table(targets(results))]) + "\n"


def write(path: Path, results: dict[str, Any]) -> None:
    write_marked_block(path, f"components-{results['meta']['database']}", block(results))
