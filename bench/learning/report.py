"""What `python -m bench.loop` reports: the strategies' table and the targets (its block of
BENCHMARKS.md, `<!-- bench:loop:... -->`), and the sweeps behind the defaults (printed).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from bench.harness.report import write_marked_block
from bench.learning.portals import PATH_CHANGES_MAX
from bench.learning.runtime import ARMS, BATCH, DEMO, INVERSION_TOLERANCE, OTHER_CALLS, OTHERS, SWAP
from bench.learning.summary import WINDOW_NONSTATIONARY, verdicts
from refinement.strategies import check_params

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from bench.learning.summary import Summary


def render(meta: dict[str, Any], rows: Sequence[Summary], follow_limit: int) -> str:
    baseline: Summary = meta["baseline"]
    seeds = ", ".join(str(s) for s in meta["seeds"])
    lines = [
        f"10 components of quality {ARMS[0]:.1f} … {ARMS[-1]:.1f} (`np.linspace`), "
        f"{meta['turns']} turns in batches of {BATCH}, an adapt after each, seeds {seeds}; "
        f"fresh live portal (uvicorn, SQLite) per strategy and seed, every strategy at its "
        f"defaults; other components present ({len(DEMO)} demo ones with feedback only, "
        f"{len(OTHERS)} of another agent with {OTHER_CALLS} calls each). Regret is expected "
        f"regret (best quality minus the chosen arm's, summed), mean over the seeds; "
        f"offline Thompson sampling on the same arms and seeds: **{baseline.regret:.1f}**.",
        "",
        f"| strategy | success over the last {meta['last']} turns | cumulative regret | "
        "inverted pairs | largest adapt step | mean final weights (arm 0.1 … arm 0.9) | "
        f"turns to follow the swap at {meta['turns'] // 2} |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        follow = ", ".join("never" if f is None else str(f) for f in row.follow)
        lines.append(
            f"| {row.strategy} | {row.last500:.1%} of the best arm | {row.regret:.1f} ± "
            f"{row.regret_se:.1f} ({row.regret / baseline.regret:.2f}x Thompson) | "
            f"{row.inverted} | {row.max_step:.3f} | "
            f"{' '.join(f'{w:.3f}' for w in row.final)} | {follow} |"
        )
    lines.append(
        f"| thompson (offline) | {baseline.last500:.1%} of the best arm | {baseline.regret:.1f} "
        f"± {baseline.regret_se:.1f} | | | | |"
    )
    lines += ["", "Targets:", ""]
    for name, ok in verdicts(baseline, rows, follow_limit).items():
        lines.append(f"- {name}: {'PASS' if ok else 'MISS'}")
    lines += [
        "",
        f"The swap: at turn {meta['turns'] // 2} arm {SWAP[0]} (the best) and arm {SWAP[1]} "
        f"exchange qualities; the portal runs with `LEARNPORTAL_ADAPT_WINDOW="
        f"{WINDOW_NONSTATIONARY}`, seeds {', '.join(str(s) for s in meta['swap_seeds'])}. "
        '"Turns to follow" is the number of turns after the swap until the new best arm has '
        "the top weight (a tie counts) for 200 turns on end. An inverted pair is two of the agent's arms "
        f"where the better weighs less than the worse by more than {INVERSION_TOLERANCE:.0%} of "
        "the top weight, counted over every seed's final weights. A run plays its 100 adapts "
        "in about a minute, so every portal runs with `LEARNPORTAL_PATH_CHANGES_MAX="
        f"{PATH_CHANGES_MAX:,}`: the brake on how often machines change one path per minute "
        "would otherwise hold every change after the 30th for a person.",
    ]
    return "\n".join(lines)


def render_sweep(rows: Sequence[dict[str, Any]], seeds: Sequence[int], turns: int) -> str:
    defaults = check_params({})
    lines = [
        f"The parameter sweep behind the defaults: the same loop on `ModelHost` (the host's adapt "
        f"arithmetic in process; it reproduces the live portal's runs exactly), {turns} turns, "
        f"seeds {', '.join(str(s) for s in seeds)}; regret over offline Thompson's on the same "
        "seeds. **Bold**: the default.",
        "",
        "| strategy | parameters | success over the last 500 turns | regret / Thompson's | "
        "inverted pairs |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        shown = _params(row["params"], defaults)
        lines.append(
            f"| {row['strategy']} | {shown} | {row['last500']:.1%} | {row['regret_x']:.2f}x | "
            f"{row['inverted']} |"
        )
    return "\n".join(lines)


def render_swap_sweep(rows: Sequence[dict[str, Any]], seeds: Sequence[int], turns: int) -> str:
    defaults = check_params({})
    lines = [
        f"The parameters that act only when the arms change, on the swap run of `ModelHost` "
        f"({turns} turns, the swap at {turns // 2}, window {WINDOW_NONSTATIONARY}, seeds "
        f"{', '.join(str(s) for s in seeds)}). **Bold**: the default.",
        "",
        "| strategy | parameters | turns to follow the swap |",
        "| --- | --- | --- |",
    ]
    for row in rows:
        shown = _params(row["params"], defaults)
        follow = ", ".join("never" if f is None else str(f) for f in row["follow"])
        lines.append(f"| {row['strategy']} | {shown} | {follow} |")
    return "\n".join(lines)


def _params(params: dict[str, float], defaults: dict[str, float]) -> str:
    """A sweep's parameters, in bold where they are the defaults."""
    shown = ", ".join(f"{k}={v:.4g}" for k, v in params.items())
    return f"**{shown}**" if all(math.isclose(defaults[k], v) for k, v in params.items()) else shown


def write(path: Path, text: str) -> None:
    """Replace the loop block, or append it at the end; nothing else in the file changes."""
    write_marked_block(path, "loop", text)
