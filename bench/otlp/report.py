"""What `python -m bench.traces` reports: the three sides, and in BENCHMARKS.md its block
(`traces-<db>`) with the figures against the goals of issue 25."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench.harness.report import run_line, table, targets_table, verdict, write_marked_block

if TYPE_CHECKING:
    from pathlib import Path

OTLP_VS_TURNS_GOAL = 0.8  # /v1/traces' spans a second over /api/turns/'s, the same turns
PHOENIX_GOAL = 20.0  # times Phoenix's sustained spans a second
VISIBLE_GOAL_S = 1.0  # the last trace readable this soon after the last answer
RSS_SHARE_GOAL = 1 / 3  # of Phoenix's peak resident memory
HEADING = """### Traces over OTLP (issue 25)

One client sends the same agent runs (traces of ten spans: an agent's root, four model calls,
three tool calls, two retrievals; 100 traces a request, one request after another) to
LearnPortal's `/api/turns/` (the turns with their steps, as JSON), to its `/v1/traces` (OTLP
protobuf; each tool span also stored as a call of its tool) and to Arize Phoenix's `/v1/traces`
(its own venv, SQLite, `phoenix serve`), each on a fresh database. Sending: spans a second
while the answers come (Phoenix answers before it stores, from a queue in memory: its burst);
visible: from the last answer until the last trace can be read (`GET
/api/turns/?correlation_id=`, Phoenix's `GET /v1/projects/default/spans?trace_id=`); end to
end: spans over the time until then, what a side sustains; memory: the server's peak resident
set, its children included.
"""

SIDES = (("turns", "LearnPortal `/api/turns/`"), ("otlp", "LearnPortal `/v1/traces`"),
         ("phoenix", "Phoenix `/v1/traces`"))  # fmt: skip


def _rows(results: dict[str, Any]) -> list[list[str]]:
    rows = []
    for key, label in SIDES:
        side = results.get(key) or {}
        if "spans_s" not in side:
            rows.append([label, side.get("error", "not run")[:120], "", "", "", ""])
            continue
        rows.append(
            [
                label,
                f"{side['spans_s']:,.0f}",
                f"{side['visible_after_s']:.2f} s",
                f"{side['end_to_end_spans_s']:,.0f}",
                f"{side['rss_peak_mb']:.0f} MB",
                f"{side['busy_answers']:,}",
            ]
        )
    return rows


def _goals(results: dict[str, Any]) -> list[list[str]]:
    turns, otlp, phoenix = (results.get(k) or {} for k in ("turns", "otlp", "phoenix"))
    goals = []
    if "spans_s" in otlp and "spans_s" in turns:
        ratio = otlp["spans_s"] / turns["spans_s"]
        goals.append(["`/v1/traces` spans/s over `/api/turns/`'s", f"{ratio:.2f}",
                      f">= {OTLP_VS_TURNS_GOAL}", verdict(ratio >= OTLP_VS_TURNS_GOAL)])  # fmt: skip
    if "spans_s" in otlp:
        seen = otlp["visible_after_s"]
        goals.append(["last trace visible after the last answer", f"{seen:.2f} s",
                      f"<= {VISIBLE_GOAL_S:.0f} s", verdict(seen <= VISIBLE_GOAL_S)])  # fmt: skip
    if "spans_s" in otlp and "spans_s" in phoenix:
        # Phoenix answers before it stores (a queue in memory, 503 once full): what it keeps up
        # with is what it stores, end to end; LearnPortal has stored a trace when it answers.
        end = otlp["end_to_end_spans_s"] / phoenix["end_to_end_spans_s"]
        goals.append(["spans/s stored and readable, against Phoenix's sustained", f"{end:.1f}x",
                      f">= {PHOENIX_GOAL:.0f}x", verdict(end >= PHOENIX_GOAL)])  # fmt: skip
        times = otlp["spans_s"] / phoenix["spans_s"]
        goals.append(["spans/s answered, against Phoenix's burst", f"{times:.1f}x", "(none)", ""])
        share = otlp["rss_peak_mb"] / phoenix["rss_peak_mb"]
        goals.append(["peak RSS, a share of Phoenix's", f"{share:.2f}", "< 0.33",
                      verdict(share < RSS_SHARE_GOAL)])  # fmt: skip
    return goals


def block(results: dict[str, Any]) -> str:
    header = ["side", "spans/s sending", "last visible after", "spans/s end to end",
              "peak RSS", "503 answers"]  # fmt: skip
    return "\n".join(
        [
            run_line(results["meta"]),
            "",
            f"{results['traces']:,} traces of {results['spans_a_trace']} spans a side.",
            "",
            table(header, _rows(results), "lrrrrr"),
            "",
            targets_table(_goals(results)),
        ]
    )


def summary(results: dict[str, Any]) -> str:
    return block(results) + "\n"


def write(path: Path, results: dict[str, Any]) -> None:
    write_marked_block(
        path, f"traces-{results['meta']['database']}", block(results), heading=HEADING
    )
