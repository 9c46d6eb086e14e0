"""2. Regret: the same simulated Bernoulli bandit for both sides, played sequentially."""

from __future__ import annotations

import math
import statistics
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.harness.report import log
from bench.strategies.data import PAIRS, SOFTMAX_LOW_TAU, bandit_means
from bench.strategies.mabwiser import mabwiser_bandit, mabwiser_label
from refinement.strategies import BUILTIN_STRATEGIES
from refinement.strategies.simulate import run_bandit, ucb1_regret_bound, uniform_regret

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


def _spread(values: Sequence[float]) -> dict[str, Any]:
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"mean": mean, "sd": sd, "se": sd / math.sqrt(len(values)), "values": list(values)}


def regret_section(
    n_arms: int, rounds: int, seeds: int, ppo_refit: int, params: Mapping[str, float]
) -> dict[str, Any]:
    means = bandit_means(n_arms)
    best = means.max()
    configs: list[tuple[str, str, dict[str, float]]] = [
        ("ucb1", "ucb1", dict(params)),
        ("epsilon_greedy", "epsilon_greedy", dict(params)),
        ("softmax", "softmax", dict(params)),
        (f"softmax tau={SOFTMAX_LOW_TAU:g}", "softmax", dict(params, temperature=SOFTMAX_LOW_TAU)),
        ("ppo", "ppo", dict(params)),
    ]
    out: dict[str, Any] = {
        "arms": n_arms,
        "rounds": rounds,
        "seeds": seeds,
        "means": [round(float(m), 4) for m in means],
        "uniform": uniform_regret(means, rounds),
        "ucb1_bound": ucb1_regret_bound(means, rounds),
        "rows": {},
    }
    for label, name, p in configs:
        refit = ppo_refit if name == "ppo" else 1
        ours, ours_s = [], 0.0
        for seed in range(seeds):
            start = time.perf_counter()
            result = run_bandit(
                BUILTIN_STRATEGIES[name], means, rounds, seed=seed, params=p, refit_every=refit
            )
            ours_s += time.perf_counter() - start
            ours.append(result.regret)
        row: dict[str, Any] = {
            "name": name,
            "refit_every": refit,
            "ours": _spread(ours),
            "ours_s_per_run": ours_s / seeds,
        }
        if name in PAIRS:
            theirs, mab_s = [], 0.0
            for seed in range(seeds):
                start = time.perf_counter()
                chosen = mabwiser_bandit(name, p, means, rounds, seed)
                mab_s += time.perf_counter() - start
                theirs.append(float(np.sum(best - means[chosen])))
            row |= {
                "mab_label": mabwiser_label(name, p),
                "mab": _spread(theirs),
                "mab_s_per_run": mab_s / seeds,
            }
            row["verdict"] = regret_verdict(row["ours"], row["mab"])
            if name == "softmax":
                row["selection"] = softmax_selection(means, p["temperature"], rounds)
        out["rows"][label] = row
        tail = f" vs MABWiser {row['mab']['mean']:.1f} [{row['verdict']}]" if "mab" in row else ""
        log(f"regret {n_arms} arms, {label}: ours {row['ours']['mean']:.1f}{tail}")
    return out


def softmax_selection(means: np.ndarray, tau: float, rounds: int) -> dict[str, float]:
    """Regret of the two ways to pick an arm from softmax probabilities p, at the true means.

    Ours samples an arm from p. MABWiser's `Softmax.predict` draws a Dirichlet(p) vector and takes
    its argmax, which is not distributed as p; this is the gap that alone makes, over the run.
    """
    p = np.exp((means - means.max()) / tau)
    p /= p.sum()
    rng = np.random.default_rng(0)
    draws = rng.dirichlet(p + np.finfo(float).eps, 100_000).argmax(axis=1)
    freq = np.bincount(draws, minlength=means.size) / draws.size
    gaps = means.max() - means
    return {"sample_p": float(rounds * gaps @ p), "dirichlet_argmax": float(rounds * gaps @ freq)}


def regret_verdict(ours: Mapping[str, float], theirs: Mapping[str, float]) -> str:
    """PASS when our mean regret is no worse; a MISS says whether it is within 2 standard errors."""
    if ours["mean"] <= theirs["mean"]:
        return "PASS"
    noise = 2.0 * math.hypot(ours["se"], theirs["se"])
    return "MISS (within noise)" if ours["mean"] - theirs["mean"] <= noise else "MISS"
