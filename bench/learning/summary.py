"""The loop's figures: each strategy at its defaults on live portals against offline Thompson,
the targets of issue 8, and the parameter sweeps on the model of the host.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.harness.report import log
from bench.learning.model_host import ModelHost
from bench.learning.portals import Portals
from bench.learning.runtime import (
    ARMS,
    STEP,
    LoopResult,
    inverted_pairs,
    offline_thompson,
    run_loop,
)
from refinement.strategies import check_params

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence


STRATEGIES = ("ucb1", "epsilon_greedy", "softmax", "ppo", "custom")
WINDOW_NONSTATIONARY = 200  # LEARNPORTAL_ADAPT_WINDOW for the swapped run
TARGETS = {"last500": 0.9, "regret_x": 3.0, "best_regret_x": 2.0, "follow": 500}


@dataclass
class Summary:
    strategy: str
    last500: float
    regret: float
    regret_se: float
    inverted: int
    max_step: float
    final: list[float]
    follow: list[int | None] = field(default_factory=list)


def summarise(strategy: str, runs: Sequence[LoopResult], last: int) -> Summary:
    regrets = np.array([r.regret for r in runs])
    finals = np.array([r.weights[-1] for r in runs])
    return Summary(
        strategy=strategy,
        last500=float(np.mean([r.last_share(last) for r in runs])),
        regret=float(regrets.mean()),
        regret_se=float(regrets.std(ddof=1) / math.sqrt(regrets.size)) if regrets.size > 1 else 0,
        inverted=sum(inverted_pairs(w, ARMS) for w in finals),
        max_step=max(r.max_step for r in runs),
        final=finals.mean(axis=0).round(3).tolist(),
    )


def model_runs(
    strategy: str,
    params: Mapping[str, float],
    seeds: Sequence[int],
    turns: int,
    *,
    swap_at: int | None = None,
    window: int = 1_000_000,
) -> list[LoopResult]:
    return [
        run_loop(
            ModelHost(check_params(params), window=window),
            strategy,
            turns=turns,
            seed=seed,
            swap_at=swap_at,
        )
        for seed in seeds
    ]


def _iter_grid(grid: Mapping[str, Sequence[float]]) -> Iterator[dict[str, float]]:
    keys = list(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, values, strict=True))


SWEEP: dict[str, dict[str, list[float]]] = {
    "epsilon_greedy": {"epsilon": [0.02, 0.03, 0.05, 0.1]},
    "softmax": {"temperature": [0.03, 0.05, 0.1, 1.0]},
    "ucb1": {"ucb_c": [0.3, 0.5, math.sqrt(2.0)], "ucb_horizon": [100, 500]},
    "ppo": {"ppo_lr": [1.0, 2.0, 5.0], "ppo_clip": [0.2, 0.5, 0.8]},
}


# Parameters that only act when the arms change: swept on the swap run (window 200).
SWAP_SWEEP: dict[str, dict[str, list[float]]] = {
    "ppo": {"ppo_untried_floor": [0.0, 0.03, 0.05, 0.1, 0.2]},
}


def swap_sweep(seeds: Sequence[int], turns: int) -> list[dict[str, Any]]:
    """`SWAP_SWEEP` on the model of the host: turns to follow the swap, per seed."""
    rows = []
    for strategy, grid in SWAP_SWEEP.items():
        for params in _iter_grid(grid):
            runs = model_runs(
                strategy,
                params,
                seeds,
                turns,
                swap_at=turns // 2,
                window=WINDOW_NONSTATIONARY,
            )
            follow = [r.follow_turns(turns // 2) for r in runs]
            rows.append({"strategy": strategy, "params": params, "follow": follow})
            log(f"swap sweep {strategy} {params}: follow {follow}")
    return rows


def sweep(seeds: Sequence[int], turns: int) -> list[dict[str, Any]]:
    """Each strategy's parameters over a grid, on the model of the host: regret and last 500."""
    rows = []
    thompson_regret = np.mean([offline_thompson(turns, s).regret for s in seeds])
    for strategy, grid in SWEEP.items():
        for params in _iter_grid(grid):
            runs = model_runs(strategy, params, seeds, turns)
            s = summarise(strategy, runs, min(500, turns // 4))
            rows.append(
                {
                    "strategy": strategy,
                    "params": params,
                    "last500": s.last500,
                    "regret_x": s.regret / thompson_regret,
                    "inverted": s.inverted,
                }
            )
            log(f"sweep {strategy} {params}: {s.last500:.1%}, {s.regret / thompson_regret:.2f}x")
    return rows


def live_table(
    seeds: Sequence[int], turns: int, swap_seeds: Sequence[int]
) -> tuple[dict[str, Any], list[Summary]]:
    """Every strategy at its defaults on fresh live portals, and offline Thompson, same seeds."""
    last = min(500, turns // 4)
    swap_at = turns // 2
    thompson_runs = [offline_thompson(turns, s) for s in seeds]
    thompson_swap = [offline_thompson(turns, s, swap_at) for s in swap_seeds]
    baseline = summarise("thompson (offline)", thompson_runs, last)
    baseline.follow = [None for _ in thompson_swap]
    portals = Portals()
    summaries = []
    try:
        for strategy in STRATEGIES:
            started = time.perf_counter()
            runs = [portals.run(strategy, {}, turns=turns, seed=s) for s in seeds]
            summary = summarise(strategy, runs, last)
            swapped = [
                portals.run(
                    strategy,
                    {},
                    turns=turns,
                    seed=s,
                    swap_at=swap_at,
                    window=WINDOW_NONSTATIONARY,
                )
                for s in swap_seeds
            ]
            summary.follow = [r.follow_turns(swap_at) for r in swapped]
            summary.max_step = max(summary.max_step, *(r.max_step for r in swapped))
            summaries.append(summary)
            log(
                f"{strategy}: last {summary.last500:.1%} of best, regret {summary.regret:.1f} "
                f"({summary.regret / baseline.regret:.2f}x Thompson), inverted "
                f"{summary.inverted}, max step {summary.max_step:.3f}, follow {summary.follow} "
                f"({time.perf_counter() - started:.0f} s)"
            )
    finally:
        portals.close()
    meta = {"turns": turns, "seeds": list(seeds), "swap_seeds": list(swap_seeds), "last": last}
    return {"baseline": baseline, **meta}, summaries


def verdicts(baseline: Summary, rows: Sequence[Summary], follow_limit: int) -> dict[str, bool]:
    """Each target of issue 8, met or not."""
    ratios = [row.regret / baseline.regret for row in rows]
    follows = [f for row in rows for f in row.follow]
    return {
        "last 500 >= 90% of best, every strategy": all(r.last500 >= 0.9 for r in rows),
        "no inverted pair of final weights": all(r.inverted == 0 for r in rows),
        "regret within 3x Thompson, every strategy": all(x <= 3.0 for x in ratios),
        "regret within 2x Thompson, the best strategy": min(ratios) <= 2.0,
        "no adapt moves a weight more than the auto-apply step": all(
            r.max_step <= STEP + 1e-9 for r in rows
        ),
        f"weights follow a swap within {follow_limit} turns, every strategy and seed": all(
            f is not None and f <= follow_limit for f in follows
        ),
        **{
            f"weights follow a swap within {follow_limit} turns, {row.strategy}": all(
                f is not None and f <= follow_limit for f in row.follow
            )
            for row in rows
        },
    }
