"""1. Fit: our strategies and MABWiser's on the very same arrays, in this process, best of n."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from bench.harness.figures import best_of
from bench.harness.report import log
from bench.strategies.data import PAIRS, STRATEGIES
from bench.strategies.mabwiser import agreement, fit_mabwiser, mabwiser_label
from refinement.strategies import BUILTIN_STRATEGIES

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np

    from bench.strategies.data import Data


def ours_label(name: str, params: Mapping[str, float]) -> str:
    if name == "ucb1":
        return f"ucb1 (ucb_c={params['ucb_c']:.4g})"
    if name == "epsilon_greedy":
        return f"epsilon_greedy (epsilon={params['epsilon']:g})"
    if name == "softmax":
        return f"softmax (temperature={params['temperature']:g})"
    return (
        f"ppo (clip={params['ppo_clip']:g}, epochs={params['ppo_epochs']:g}, "
        f"lr={params['ppo_lr']:g})"
    )


def fit_ours(data: Data, name: str, params: Mapping[str, float]) -> np.ndarray:
    """Build the Evidence (its checks included, as MABWiser's fit checks its input) and run."""
    return BUILTIN_STRATEGIES[name](data.evidence(), params)


def fit_section(data: Data, repeats: int, params: Mapping[str, float]) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for name in STRATEGIES:
        seconds, ours = best_of(repeats, partial(fit_ours, data, name, params))
        row: dict[str, Any] = {"ours_s": seconds, "ours": ours_label(name, params)}
        if name in PAIRS:
            mab_s, (mab, _expect) = best_of(repeats, partial(fit_mabwiser, data, name, params))
            row |= {
                "mab": mabwiser_label(name, params),
                "mab_s": mab_s,
                "speedup": mab_s / seconds,
                "check": agreement(name, ours, mab),
            }
        rows[name] = row
        tail = f", MABWiser {row['mab_s']:.3f} s, {row['speedup']:.0f}x" if "mab_s" in row else ""
        log(f"fit {name}: ours {seconds * 1e3:.1f} ms{tail}")
    slowest = max(rows[n]["mab_s"] for n in PAIRS)
    rows["ppo"]["vs_slowest_mab"] = slowest / rows["ppo"]["ours_s"]
    return rows
