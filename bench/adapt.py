"""`python -m bench.adapt [--quick]`: the adaptive strategies against MABWiser 2.7.

Three parts, all on data made here from one seed:

1. **Fit.** 1,000 arms with Bernoulli means, 1,000,000 experiences (arm uniform, the behaviour
   policy of a fresh router); our `ucb1`, `epsilon_greedy`, `softmax` and `ppo` on an `Evidence`
   against MABWiser's `UCB1`, `EpsilonGreedy` and `Softmax` `.fit()` + `.predict_expectations()`
   on the very same arrays, in this process, best of 3. The parameters are matched so that both
   sides compute the same thing, and that is checked (same arm chosen, same probabilities).
2. **Regret.** The same simulated Bernoulli bandit for both sides, sequential (a decision, a
   reward, an update, every round): ours through `simulate.run_bandit(refit_every=1)`, MABWiser
   with `predict()` + `partial_fit()` of that one decision.
3. **End to end.** `refinement.adapt.adapt_run` in Django on a fresh SQLite database holding the
   same 1,000,000 experiences for 1,000 components, split into the DB read (`load_evidence`),
   the strategy and the applying of the trust-region steps, with probes of what a faster read
   would cost and a cProfile listing.

Prints a summary and rewrites the `<!-- bench:adapt:... -->` block of BENCHMARKS.md (not with
--quick). MABWiser is a bench-only dependency (`pip install .[bench]`), imported only here.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import math
import os
import platform
import pstats
import re
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from refinement.strategies import BUILTIN_STRATEGIES, PARAMS, Evidence, check_params
from refinement.strategies.simulate import run_bandit, ucb1_regret_bound, uniform_regret

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

ROOT = Path(__file__).resolve().parent.parent
MARK_START = "<!-- bench:adapt:start -->"
MARK_END = "<!-- bench:adapt:end -->"
SPEED_TARGET = 10.0
PAIRS = ("ucb1", "epsilon_greedy", "softmax")
STRATEGIES = ("ucb1", "epsilon_greedy", "softmax", "ppo")
MAB_NAME = {"ucb1": "UCB1", "epsilon_greedy": "EpsilonGreedy", "softmax": "Softmax"}
# The app's defaults (refinement.strategies.base.PARAMS, learnportal/settings.py), used for the
# fit and the end-to-end run; the regret also runs softmax at a temperature that suits [0, 1].
DEFAULTS = check_params({})
SOFTMAX_LOW_TAU = 0.1

FULL: dict[str, Any] = {
    "arms": 1000,
    "experiences": 1_000_000,
    "repeats": 3,
    # (arms, rounds, seeds)
    "bandits": [(10, 10_000, 20), (100, 10_000, 8)],
    "ppo_refit": 20,
    "read_repeats": 2,
    "e2e_small": 10_000,  # the end-to-end adapt at this many experiences, then at all of them
}
QUICK: dict[str, Any] = {
    "arms": 50,
    "experiences": 20_000,
    "repeats": 2,
    "bandits": [(5, 400, 2)],
    "ppo_refit": 20,
    "read_repeats": 1,
    "e2e_small": 2_000,
}


def log(message: str) -> None:
    # stderr, so that the end-to-end worker's progress shows while it runs (its stdout is JSON).
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- data -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Data:
    """A logged bandit: per-arm Bernoulli means and who was pulled with what reward, in order."""

    means: np.ndarray  # float64 (n_arms,)
    arm: np.ndarray  # int64 (n,)
    reward01: np.ndarray  # float64 (n,), in {0, 1}: MABWiser's scale

    @property
    def n_arms(self) -> int:
        return int(self.means.size)

    @property
    def size(self) -> int:
        return int(self.arm.size)

    @property
    def reward(self) -> np.ndarray:
        """The strategies' [-1, 1] scale."""
        return self.reward01 * 2.0 - 1.0

    def evidence(self) -> Evidence:
        """What `load_evidence` would build from these rows: a uniform router logged them."""
        n = self.n_arms
        return Evidence(n, self.arm, self.reward, np.full(self.size, 1.0 / n), np.full(n, 0.5))


def make_data(n_arms: int, n_experiences: int, seed: int) -> Data:
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.05, 0.95, n_arms)
    arm = rng.integers(0, n_arms, n_experiences, dtype=np.int64)
    reward01 = (rng.random(n_experiences) < means[arm]).astype(np.float64)
    return Data(means, arm, reward01)


def bandit_means(n_arms: int) -> np.ndarray:
    """The simulated bandit's arms, fixed by a seed of their own so every run plays the same."""
    return np.random.default_rng(1000 + n_arms).uniform(0.05, 0.95, n_arms)


# --- matching parameters --------------------------------------------------------------------


def mabwiser_policy(name: str, params: Mapping[str, float]) -> Any:
    """MABWiser's policy computing what ours computes with these parameters.

    - UCB1: ours is mean + c sqrt(ln n / n_i), MABWiser's mean + alpha sqrt(2 ln n / n_i), both
      on [0, 1] rewards: alpha = c / sqrt(2) (the default c = sqrt 2 is alpha = 1, Auer's index).
    - EpsilonGreedy: the same epsilon.
    - Softmax: ours is exp(mean / temperature) over means rescaled to [0, 1]; MABWiser's
      exp(mean / tau) over means of {0, 1} rewards: the same scale, so tau = temperature.
    """
    from mabwiser.mab import LearningPolicy

    if name == "ucb1":
        return LearningPolicy.UCB1(alpha=float(params["ucb_c"]) / math.sqrt(2.0))
    if name == "epsilon_greedy":
        return LearningPolicy.EpsilonGreedy(epsilon=float(params["epsilon"]))
    if name == "softmax":
        return LearningPolicy.Softmax(tau=float(params["temperature"]))
    raise ValueError(f"no MABWiser counterpart for {name!r}")


def mabwiser_label(name: str, params: Mapping[str, float]) -> str:
    if name == "ucb1":
        return f"UCB1(alpha={params['ucb_c'] / math.sqrt(2.0):g})"
    if name == "epsilon_greedy":
        return f"EpsilonGreedy(epsilon={params['epsilon']:g})"
    return f"Softmax(tau={params['temperature']:g})"


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


# --- 1. fit ---------------------------------------------------------------------------------


def best_of(repeats: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of `repeats` calls, and the last call's result."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def fit_ours(data: Data, name: str, params: Mapping[str, float]) -> np.ndarray:
    """Build the Evidence (its checks included, as MABWiser's fit checks its input) and run."""
    return BUILTIN_STRATEGIES[name](data.evidence(), params)


def fit_mabwiser(data: Data, name: str, params: Mapping[str, float]) -> tuple[Any, dict[str, Any]]:
    from mabwiser.mab import MAB

    mab = MAB(list(range(data.n_arms)), mabwiser_policy(name, params), seed=0)
    mab.fit(data.arm, data.reward01)
    return mab, mab.predict_expectations()


def agreement(name: str, ours: np.ndarray, mab: Any) -> str:
    """Whether both sides computed the same thing on the same data (MABWiser's internal state)."""
    theirs = np.array(list(mab._imp.arm_to_expectation.values()), dtype=np.float64)
    if name == "softmax":
        return f"probabilities, max abs diff {np.abs(ours - theirs).max():.1e}"
    same = int(np.argmax(ours)) == int(np.argmax(theirs))
    return f"best arm {'same' if same else 'DIFFERENT'} ({int(np.argmax(ours))})"


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


# --- 2. regret ------------------------------------------------------------------------------


def mabwiser_bandit(
    name: str, params: Mapping[str, float], means: np.ndarray, rounds: int, seed: int
) -> np.ndarray:
    """MABWiser played sequentially on a Bernoulli bandit; returns the arms chosen.

    It starts with one pull of each arm in order (counted in its regret), as Auer's UCB1 does.
    MABWiser must be fit before its first prediction and values an arm without data at 0: fit on
    one pull of arm 0 instead, its UCB1 pulls arm 0 for ever (2,000 of 2,000 rounds, checked).
    Our strategies try every arm by themselves (an arm without data is valued at the top).
    """
    from mabwiser.mab import MAB

    rng = np.random.default_rng(seed)
    n_arms = means.size
    mab = MAB(list(range(n_arms)), mabwiser_policy(name, params), seed=seed)
    chosen = np.empty(rounds, dtype=np.int64)
    warm = min(n_arms, rounds)
    first = np.arange(warm)
    mab.fit(first, (rng.random(warm) < means[first]).astype(np.float64))
    chosen[:warm] = first
    for t in range(warm, rounds):
        arm = int(mab.predict())
        mab.partial_fit([arm], [1.0 if rng.random() < means[arm] else 0.0])
        chosen[t] = arm
    return chosen


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


# --- 3. end to end, in Django ---------------------------------------------------------------

OWNER_NAME = "bench"
EPISODE = 50
LOAD_BATCH = 100_000


def component_name(i: int) -> str:
    return f"component-{i:04d}"


def experience_rows(
    data: Data, columns: Sequence[str], owner: str, start: int, stop: int, t0: float
) -> list[tuple[Any, ...]]:
    """Rows for `feedback_experience` in the given column order, ~230 bytes of payload each."""
    names = [component_name(i) for i in range(data.n_arms)]
    idx = range(start, stop)
    arm = data.arm[start:stop].tolist()
    won = (data.reward01[start:stop] > 0.5).tolist()
    step = [i % EPISODE for i in idx]
    episode = [f"ep-{i // EPISODE:07d}" for i in idx]
    values = {
        "experience_id": [f"bench-{i:08d}" for i in idx],
        "owner": [owner] * len(idx),
        "episode_id": episode,
        "step": step,
        "component_name": [names[a] for a in arm],
        "reward": [1.0 if w else -1.0 for w in won],
        "done": [s == EPISODE - 1 for s in step],
        "duration_ms": [20.0 + (i * 7919 % 1000) / 10.0 for i in idx],
        "success": won,
        "behaviour_prob": [1.0 / data.n_arms] * len(idx),
        "state": [
            f'{{"episode":"{e}","step":{s},"query":"q{i % 997}"}}'
            for i, e, s in zip(idx, episode, step, strict=True)
        ],
        "action": [f'{{"component_name":"{names[a]}","tool":"search"}}' for a in arm],
        "next_state": [
            f'{{"episode":"{e}","step":{s + 1}}}' for e, s in zip(episode, step, strict=True)
        ],
        "ts": [t0 + i * 1e-3 for i in idx],
        "content_hash": [f"{i:032x}" for i in idx],
        "attributed": [True] * len(idx),
    }
    missing = [c for c in columns if c not in values]
    if missing:
        raise RuntimeError(f"bench.adapt does not know how to fill experience columns {missing}")
    return list(zip(*(values[c] for c in columns), strict=True))


def _sqlite_path(var_dir: Path) -> Path:
    return var_dir / "learnportal.sqlite3"


def _bulk_load(data: Data, var_dir: Path, owner: str, start: int, stop: int) -> dict[str, Any]:
    """Rows [start, stop) by the driver's executemany, one transaction per 100,000; then the
    aggregates of rows [0, stop): `ComponentStats`, the quota, and the reward buckets adapt
    reads, by `rebuild_rewards` (the backfill an existing database gets), timed."""
    from django.db import connection, transaction

    from feedback.models import ComponentOwner, ComponentStats, Experience, ExperienceQuota
    from feedback.rewards import rewards_rebuild
    from feedback.services.rows import EXPERIENCE_COLUMNS

    table = Experience._meta.db_table
    columns = list(EXPERIENCE_COLUMNS)
    quoted = ", ".join(f'"{c}"' for c in columns)
    insert = f'INSERT INTO "{table}" ({quoted}) VALUES ({", ".join("?" * len(columns))})'
    connection.close()
    conn = sqlite3.connect(_sqlite_path(var_dir), isolation_level=None, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA cache_size=-65536")
    t0 = time.time() - data.size * 1e-3
    build_s = insert_s = 0.0
    for first in range(start, stop, LOAD_BATCH):
        t = time.perf_counter()
        rows = experience_rows(data, columns, owner, first, min(first + LOAD_BATCH, stop), t0)
        build_s += time.perf_counter() - t
        t = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(insert, rows)
        conn.execute("COMMIT")
        insert_s += time.perf_counter() - t
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    counts = np.bincount(data.arm[:stop], minlength=data.n_arms)
    wins = np.bincount(data.arm[:stop], weights=data.reward01[:stop], minlength=data.n_arms)
    now = time.time()
    ComponentStats.objects.all().delete()
    ComponentStats.objects.bulk_create(
        ComponentStats(
            component_name=component_name(i),
            calls_total=int(counts[i]),
            calls_success=int(wins[i]),
            calls_failed=int(counts[i] - wins[i]),
            last_called=now,
        )
        for i in range(data.n_arms)
    )
    # The bench agent's components, as its first reported calls would claim them.
    ComponentOwner.objects.all().delete()
    ComponentOwner.objects.bulk_create(
        ComponentOwner(component_name=component_name(i), owner=owner, claimed=now)
        for i in range(data.n_arms)
    )
    ExperienceQuota.objects.update_or_create(owner=owner, defaults={"stored": stop})
    t = time.perf_counter()
    with transaction.atomic():
        buckets = rewards_rebuild()
    backfill_s = time.perf_counter() - t
    connection.close()
    return {
        "rows": stop,
        "loaded": stop - start,
        "arms": data.n_arms,
        "build_s": build_s,
        "insert_s": insert_s,
        "rows_per_s": (stop - start) / insert_s,
        "backfill_s": backfill_s,
        "buckets": buckets,
        "db_mb": _sqlite_path(var_dir).stat().st_size / 2**20,
    }


class PhaseTimer:
    """Exclusive wall time of named callables, wrapped in place (in the bench process only).

    A phase's time excludes the wrapped phases called inside it, so the phases add up.
    """

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list[float]] = []  # [start, time of timed children]
        self._saved: list[tuple[Any, str, Any]] = []

    def timed(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            frame = [time.perf_counter(), 0.0]
            self._stack.append(frame)
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - frame[0]
                self._stack.pop()
                if self._stack:
                    self._stack[-1][1] += elapsed
                self.totals[label] = self.totals.get(label, 0.0) + elapsed - frame[1]
                self.calls[label] = self.calls.get(label, 0) + 1

        return wrapper

    def wrap(self, owner: Any, attr: str, label: str) -> bool:
        """Time `owner.attr` under `label`; False if there is no such attribute (code moved on)."""
        original = getattr(owner, attr, None)
        if not callable(original):
            return False
        self._saved.append((owner, attr, original))
        setattr(owner, attr, self.timed(label, original))
        return True

    def restore(self) -> None:
        for owner, attr, original in reversed(self._saved):
            setattr(owner, attr, original)
        self._saved.clear()


# (module, attribute, label): the steps of one adapt_run, timed exclusively. The app changes
# under the bench: an attribute that is not there is reported as not timed, not an error.
ADAPT_PHASES = [
    ("refinement.adapt", "components", "read: `components`"),
    ("refinement.adapt", "load_evidence_sets", "read: `load_evidence_sets`"),
    ("feedback.selectors", "reward_sums", "read: `reward_sums` (SQL + fetch)"),
    ("feedback.selectors", "experience_window", "read: `experience_window` (SQL + fetch)"),
    ("refinement.adapt", "recently_rolled_back", "apply: `recently_rolled_back`"),
    ("refinement.adapt", "_supersede_pending", "apply: `_supersede_pending`"),
    ("refinement.adapt", "edits_apply", "apply: `edits_apply`, own statements"),
    ("refinement.store", "read_many", "apply: `store.read_many(lock=True)` in `edits_apply`"),
    ("refinement.store", "write_many", "apply: `store.write_many` (values + revisions)"),
    ("refinement.services.edits", "history_record", "apply: `history_record` of the refinement"),
    ("refinement.adapt", "proposals_file", "apply: `proposals_file` (proposals + reviews)"),
    ("refinement.adapt", "plan_settle", "apply: `plan_settle`"),
    ("refinement.adapt", "history_record", "apply: `history_record` of the adapt"),
    ("refinement.adapt", "component_records", "apply: `component_records`"),
    ("core.events", "broadcast_now", "apply: broadcasts after COMMIT"),
]


def _timed_adapt(strategy: str, principal: Any) -> dict[str, Any]:
    import importlib

    from django.db import connection
    from django.db.backends.base.base import BaseDatabaseWrapper

    import refinement.adapt as adapt_module

    timer = PhaseTimer()
    untimed = [
        f"{module}.{attr}"
        for module, attr, label in ADAPT_PHASES
        if not timer.wrap(importlib.import_module(module), attr, label)
    ]
    timer.wrap(BaseDatabaseWrapper, "commit", "apply: COMMIT")
    # adapt's own binding of the registry's function, patched where adapt looks it up.
    original_for = vars(adapt_module)["strategy_for"]
    vars(adapt_module)["strategy_for"] = lambda name: timer.timed("strategy", original_for(name))
    queries = 0

    def count(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    try:
        with connection.execute_wrapper(count):
            start = time.perf_counter()
            outcome = adapt_module.adapt_run(
                principal=principal, component_name="", strategy=strategy
            )
            total = time.perf_counter() - start
    finally:
        vars(adapt_module)["strategy_for"] = original_for
        timer.restore()
    phases = timer.totals
    read = sum(secs for label, secs in phases.items() if label.startswith("read:"))
    strat = phases.get("strategy", 0.0)
    return {
        "total_s": total,
        "read_s": read,
        "strategy_s": strat,
        "apply_s": total - read - strat,
        "phases": phases
        | {"apply: the rest (plan, weights, ORM, Python)": total - sum(phases.values())},
        "calls": timer.calls,
        "untimed": untimed,
        "queries": queries,
        "moved": len(outcome.updated),
        "message": outcome.message[:160],
    }


def _read_probes(data: Data, stored: int, repeats: int) -> dict[str, Any]:
    """What adapt reads now (the kept sums; PPO's bounded replay) against the read it replaced
    (every experience: `fetchall` of the whole table) and a SQL GROUP BY over it."""
    from django.conf import settings
    from django.db import connection

    from feedback.models import Experience
    from refinement import store
    from refinement.evidence import component_names, load_evidence

    table = connection.ops.quote_name(Experience._meta.db_table)
    names = component_names()
    weights = store.routing_weights()

    def fetch_all() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT component_name, reward, behaviour_prob FROM {table} "
                "WHERE component_name <> '' ORDER BY id"
            )
            return len(cursor.fetchall())

    def group_by() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT component_name, COUNT(*), SUM(reward) FROM {table} "
                "WHERE component_name <> '' GROUP BY component_name"
            )
            return len(cursor.fetchall())

    sums_s, evidence = best_of(repeats, lambda: load_evidence(names, weights, replay=False))
    counts = np.bincount(data.arm[:stored], minlength=data.n_arms)
    if not np.array_equal(evidence.counts, counts):
        raise RuntimeError("the kept reward sums differ from the loaded data")
    replay_s, replayed = best_of(repeats, lambda: load_evidence(names, weights, replay=True))
    return {
        "sums_s": sums_s,
        "replay_s": replay_s,
        "replay_rows": replayed.size,
        "replay_limit": settings.LEARNPORTAL_REPLAY_WINDOW,
        "fetch_all_s": best_of(1, fetch_all)[0],
        "group_by_s": best_of(1, group_by)[0],
    }


def _latency_during_adapt(principal: Any, component: str, adapts: int) -> dict[str, Any]:
    """A stats read of one component (what learn/stats/req reads) in a thread of its own, on
    its own connection, every 2 ms: for 2 s alone, then while `adapts` ucb1 adapts run back
    to back in this thread, as another request would be served beside them in one process."""
    import threading

    from django.db import connection

    from feedback.selectors.components import component_records
    from refinement.adapt import adapt_run

    idle: list[float] = []
    busy: list[float] = []
    during = threading.Event()
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                start = time.perf_counter()
                component_records(component)
                elapsed = time.perf_counter() - start
                (busy if during.is_set() else idle).append(elapsed)
                time.sleep(0.002)
        finally:
            connection.close()

    thread = threading.Thread(target=reader)
    thread.start()
    time.sleep(2.0)
    during.set()
    start = time.perf_counter()
    for _ in range(adapts):
        adapt_run(principal=principal, component_name="", strategy="ucb1")
    adapt_s = (time.perf_counter() - start) / adapts
    during.clear()
    time.sleep(0.5)
    stop.set()
    thread.join()

    def pct(values: list[float], q: float) -> float:
        return float(np.percentile(values, q)) * 1e3 if values else math.nan

    return {
        "adapts": adapts,
        "adapt_s": adapt_s,
        "idle_n": len(idle),
        "busy_n": len(busy),
        "idle_ms_p50": pct(idle, 50),
        "idle_ms_p95": pct(idle, 95),
        "busy_ms_p50": pct(busy, 50),
        "busy_ms_p95": pct(busy, 95),
        "busy_ms_max": max(busy) * 1e3 if busy else math.nan,
    }


def _profile_adapt(strategy: str, principal: Any, top: int = 18) -> dict[str, Any]:
    from refinement.adapt import adapt_run

    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    adapt_run(principal=principal, component_name="", strategy=strategy)
    profiler.disable()
    wall = time.perf_counter() - start
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    stats.sort_stats("tottime").print_stats(top)
    rows = []
    # pstats keeps its table in `.stats`; typeshed's Stats leaves the attribute out.
    table = stats.stats  # type: ignore[attr-defined]
    for (path, line, func), (_cc, nc, tt, ct, _callers) in table.items():
        if path == "~":
            where = re.sub(r" at 0x[0-9a-f]+", "", func).strip("<>")
        else:
            short = re.sub(r".*/site-packages/", "", path.replace(str(ROOT) + "/", ""))
            where = f"{short}:{line}({func})"
        rows.append({"function": where, "calls": nc, "tottime": tt, "cumtime": ct})
    rows.sort(key=lambda r: r["tottime"], reverse=True)
    return {"strategy": strategy, "wall_s": wall, "top": rows[:top], "text": stream.getvalue()}


def worker(task_path: Path) -> dict[str, Any]:
    """Inside a Django process set up on the fresh database: load, probe, adapt, profile."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    from core.accounts.principals import Principal
    from core.accounts.roles import Role
    from refinement.trust_region import STEP_LIMIT

    task = orjson.loads(task_path.read_bytes())
    var_dir = Path(task["var_dir"])
    data = Data(
        np.load(var_dir / "means.npy"),
        np.load(var_dir / "arm.npy"),
        np.load(var_dir / "reward.npy"),
    )
    principal = Principal(role=Role.AGENT, name=OWNER_NAME, is_human=False)
    db_path = _sqlite_path(var_dir)
    pristine = var_dir / "pristine.sqlite3"

    def restore() -> None:
        connection.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(pristine, db_path)
        # Written back now, so that the kernel's writeback of the copy (360 MiB at 1M
        # experiences) does not compete with the adapt timed next.
        os.sync()

    adapts: dict[str, dict[str, Any]] = {}
    loads, reads = {}, {}
    stored = 0
    for size in task["sizes"]:
        if stored:
            restore()  # the adapts of the smaller size leave no trace in the larger
        log(f"e2e: loading to {size:,} experiences for {data.n_arms:,} components")
        loads[str(size)] = _bulk_load(data, var_dir, principal.key, stored, size)
        stored = size
        load = loads[str(size)]
        log(
            f"e2e: loaded at {load['rows_per_s']:,.0f} rows/s, {load['db_mb']:.0f} MiB; "
            f"backfill of the reward sums {load['backfill_s']:.2f} s"
        )
        shutil.copyfile(db_path, pristine)
        reads[str(size)] = _read_probes(data, size, task["read_repeats"])
        connection.close()
        for strategy in STRATEGIES:
            tries = []
            for _ in range(task["adapt_repeats"]):  # best of a few: the machine is shared
                restore()
                tries.append(_timed_adapt(strategy, principal))
            adapts[f"{strategy}@{size}"] = a = min(tries, key=lambda t: t["total_s"])
            a["tries_s"] = [t["total_s"] for t in tries]
            log(
                f"e2e adapt {strategy} at {size:,}: {a['total_s']:.3f} s = read "
                f"{a['read_s']:.3f} + strategy {a['strategy_s']:.3f} + apply {a['apply_s']:.3f}; "
                f"{a['queries']:,} queries, {a['moved']} moved"
            )
    restore()
    log("e2e: a stats read beside adapts")
    latency = _latency_during_adapt(principal, component_name(7), 5)
    log(
        f"e2e: stats read p50/p95 {latency['idle_ms_p50']:.2f}/{latency['idle_ms_p95']:.2f} ms "
        f"alone, {latency['busy_ms_p50']:.2f}/{latency['busy_ms_p95']:.2f} ms during adapts"
    )
    restore()
    log("e2e: cProfile of one adapt (ucb1)")
    profile = _profile_adapt("ucb1", principal)
    connection.close()
    return {
        "latency": latency,
        "sizes": task["sizes"],
        "loads": loads,
        "reads": reads,
        "adapts": adapts,
        "profile": profile,
        "settings": {
            "auto_apply_max_risk": settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK,
            "max_step": STEP_LIMIT[settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK],
            "strategy_params": dict(settings.LEARNPORTAL_STRATEGY_PARAMS),
            "debug": settings.DEBUG,
            "adapt_window": settings.LEARNPORTAL_ADAPT_WINDOW,
            "replay_window": settings.LEARNPORTAL_REPLAY_WINDOW,
        },
    }


def e2e_section(data: Data, sizes: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh SQLite database (bench.environment's helpers), migrated, then `worker` in it."""
    from bench.environment import Database, app_env, manage

    database = Database(None)
    try:
        db_env = database.create("adapt")
        env = app_env(db_env, debug=False)
        var_dir = Path(db_env["LEARNPORTAL_VAR_DIR"])
        start = time.perf_counter()
        manage(env, "migrate", "--no-input", "-v", "0")
        migrate_s = time.perf_counter() - start
        np.save(var_dir / "means.npy", data.means)
        np.save(var_dir / "arm.npy", data.arm)
        np.save(var_dir / "reward.npy", data.reward01)
        task = var_dir / "task.json"
        task.write_bytes(
            orjson.dumps(
                {
                    "var_dir": str(var_dir),
                    "read_repeats": sizes["read_repeats"],
                    "adapt_repeats": sizes["repeats"],
                    "sizes": sorted({sizes["e2e_small"], data.size}),
                }
            )
        )
        proc = subprocess.run(
            [sys.executable, "-m", "bench.adapt", "--worker", str(task)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=None,
            text=True,
            check=False,
        )
        lines = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or not lines:
            raise RuntimeError(f"the end-to-end worker failed (exit {proc.returncode})")
        result: dict[str, Any] = orjson.loads(lines[-1])
        result["migrate_s"] = migrate_s
        return result
    finally:
        database.drop_all()


# --- report ---------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = {}
    for name in ("numpy", "mabwiser", "django", "joblib"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "?"
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "commit": commit or "?",
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "sqlite": sqlite3.sqlite_version,
        "versions": versions,
    }


def _table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    align = align or "l" + "r" * (len(header) - 1)
    marks = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f}"


def _pm(spread: Mapping[str, float]) -> str:
    return f"{spread['mean']:,.1f} ± {spread['sd']:,.1f}"


def targets(results: Mapping[str, Any]) -> list[list[str]]:
    """(figure, measured, target, verdict) rows for the two targets: the fit's speed-up over
    MABWiser (SPEED_TARGET) and regret no worse than its."""
    rows = []
    fit = results["fit"]
    for name in PAIRS:
        r = fit[name]
        rows.append(
            [
                f"fit {name} vs MABWiser {MAB_NAME[name]}",
                f"{_ms(r['ours_s'])} vs {_ms(r['mab_s'])} ms = {r['speedup']:,.0f}x",
                f">= {SPEED_TARGET:g}x",
                "PASS" if r["speedup"] >= SPEED_TARGET else "MISS",
            ]
        )
    e2e = results.get("e2e")
    if e2e:
        small, large = e2e["sizes"][0], e2e["sizes"][-1]
        for name in PAIRS:
            total = e2e["adapts"][f"{name}@{large}"]["total_s"]
            mab = fit[name]["mab_s"]
            rows.append(
                [
                    f"end-to-end adapt_run {name} vs MABWiser {MAB_NAME[name]} fit",
                    f"{total:,.3f} vs {mab:,.3f} s = {mab / total:,.2f}x",
                    "faster (> 1x)",
                    "PASS" if total < mab else "MISS",
                ]
            )
        if lat := e2e.get("latency"):
            ratio = lat["busy_ms_p95"] / lat["idle_ms_p95"]
            rows.append(
                [
                    "stats read p95 during adapts / alone",
                    f"{lat['busy_ms_p95']:.2f} / {lat['idle_ms_p95']:.2f} ms = {ratio:.2f}x",
                    "<= 2x (our reading of 'keep their latency')",
                    "PASS" if ratio <= 2.0 else "MISS",
                ]
            )
        for name in STRATEGIES:
            at_large = e2e["adapts"][f"{name}@{large}"]["total_s"]
            at_small = e2e["adapts"][f"{name}@{small}"]["total_s"]
            rows.append(
                [
                    f"end-to-end adapt_run {name}, {large:,} / {small:,} experiences",
                    f"{at_large:,.3f} / {at_small:,.3f} s = {at_large / at_small:,.2f}x",
                    "<= 1.5x",
                    "PASS" if at_large <= 1.5 * at_small else "MISS",
                ]
            )
    for bandit in results["regret"]:
        for label, r in bandit["rows"].items():
            if "mab" not in r:
                continue
            rows.append(
                [
                    f"regret {label}, {bandit['arms']} arms x {bandit['rounds']:,} rounds",
                    f"{_pm(r['ours'])} vs {_pm(r['mab'])}",
                    "<= MABWiser",
                    r["verdict"],
                ]
            )
    return rows


def summary(results: Mapping[str, Any]) -> str:
    meta = results["meta"]
    return "\n".join(
        [
            "",
            f"bench.adapt: {meta['arms']:,} arms x {meta['experiences']:,} experiences, "
            f"{meta['nproc']} x {meta['cpu']}, {meta['seconds']:.0f} s",
            "",
            _table(["figure", "measured", "target", ""], targets(results), "lllr"),
            "",
        ]
    )


def block(results: Mapping[str, Any]) -> str:
    meta = results["meta"]
    v = meta["versions"]
    fit = results["fit"]
    p = DEFAULTS
    lines = [
        f"### Adaptive strategies against MABWiser: {meta['started']}",
        "",
        f"- Machine: {meta['nproc']} x {meta['cpu']}, {meta['os']}; Python {meta['python']}, "
        f"numpy {v['numpy']}, mabwiser {v['mabwiser']} (joblib {v['joblib']}), "
        f"Django {v['django']}, SQLite {meta['sqlite']}.",
        f"- Command: `{meta['command']}` at commit `{meta.get('commit', '?')}`; took "
        f"{meta['seconds'] / 60:.1f} min. Load average (1 min) at start / end: "
        f"{meta['load'][0]} / {meta['load'][1]}.",
        f"- Data (seed {meta['seed']}): {meta['arms']:,} arms with Bernoulli means uniform in "
        f"[0.05, 0.95]; {meta['experiences']:,} experiences, arm uniform (a fresh router's "
        f"behaviour, `behaviour_prob` = 1/{meta['arms']}), reward Bernoulli: r * 2 - 1 for ours, "
        f"{{0, 1}} for MABWiser (int arms 0..{meta['arms'] - 1}, its fastest case).",
        f"- Parameters, the app's defaults, matched: ours `ucb_c` = {p['ucb_c']:g} is MABWiser "
        f"`alpha` = {p['ucb_c'] / math.sqrt(2.0):.4g} (its index is mean + alpha sqrt(2 ln n / "
        f"n_i)); `epsilon` = {p['epsilon']:g} both; softmax temperature = tau = "
        f"{p['temperature']:g} on both sides, both over means on [0, 1] (ours rescales [-1, 1] "
        "rewards, MABWiser's rewards are {0, 1}); our UCB1's share of the next "
        f"{p['ucb_horizon']:g} pulls is not MABWiser's, so the check compares the best arm. "
        "The check column confirms both sides compute the same thing on the data. PPO: "
        f"clip {p['ppo_clip']:g}, {p['ppo_epochs']:g} epochs, lr {p['ppo_lr']:g}, entropy "
        f"{p['ppo_entropy']:g}.",
        "",
        _table(["figure", "measured", "target", ""], targets(results), "lllr"),
        "",
        *_notes(results),
        "**Fit on the same data, same process, best of "
        f"{meta['repeats']}** (ours: build the `Evidence`, with its checks, and run the strategy; "
        "MABWiser: `MAB(...)`, `.fit(decisions, rewards)`, `.predict_expectations()`, "
        "n_jobs=1; n_jobs=-1 was no faster on this machine):",
        "",
    ]
    rows = []
    for name in STRATEGIES:
        r = fit[name]
        if name in PAIRS:
            rows.append(
                [
                    f"`{r['ours']}`",
                    _ms(r["ours_s"]),
                    f"`{r['mab']}`",
                    _ms(r["mab_s"]),
                    f"{r['speedup']:,.0f}x",
                    r["check"],
                ]
            )
        else:
            rows.append(
                [
                    f"`{r['ours']}`",
                    _ms(r["ours_s"]),
                    "(none; slowest MABWiser fit)",
                    _ms(max(fit[n]["mab_s"] for n in PAIRS)),
                    f"{r['vs_slowest_mab']:,.0f}x",
                    "",
                ]
            )
    lines += [
        _table(["ours", "ms", "MABWiser", "ms", "speed-up", "check"], rows, "lrlrrl"),
        "",
    ]
    for bandit in results["regret"]:
        lines += _regret_block(bandit)
    if results.get("e2e"):
        lines += _e2e_block(results["e2e"], fit)
    return "\n".join(lines) + "\n"


def _notes(results: Mapping[str, Any]) -> list[str]:
    """What the figures say, with this run's numbers."""
    fit, meta = results["fit"], results["meta"]
    speed = [fit[n]["speedup"] for n in PAIRS]
    notes = [
        f"- **Fit: {min(speed):,.0f}x to {max(speed):,.0f}x faster than MABWiser** on "
        f"{meta['experiences']:,} experiences. Ours is two `np.bincount` passes plus the "
        "`Evidence` checks; MABWiser's `_fit_arm` runs once per arm in Python and scans every "
        "decision each time (`rewards[decisions == arm]`), O(arms x experiences). PPO (10 "
        f"full-batch epochs) takes {_ms(fit['ppo']['ours_s'])} ms, still "
        f"{fit['ppo']['vs_slowest_mab']:,.0f}x under the slowest MABWiser fit.",
    ]
    e2e = results.get("e2e")
    if e2e:
        large = e2e["sizes"][-1]
        a = {name: e2e["adapts"][f"{name}@{large}"] for name in STRATEGIES}
        reads = e2e["reads"][str(large)]
        totals = [a[n]["total_s"] for n in PAIRS]
        ucb = a["ucb1"]
        notes += [
            f"- **End to end, `adapt_run` of the value-based strategies takes "
            f"{min(totals):.3f} to {max(totals):.3f} s** at {large:,} experiences, against "
            f"MABWiser's in-memory fit of {fit['ucb1']['mab_s']:.3f} s on the same data. The read "
            f"is {ucb['read_s'] * 1e3:.1f} ms: each component's count and reward sum over the "
            "adapt window, kept per bucket of experience ids at ingest (`feedback.rewards`), "
            f"{reads['sums_s'] * 1e3:.1f} ms alone, where reading every experience took "
            f"{reads['fetch_all_s']:.2f} s (and a SQL GROUP BY over them "
            f"{reads['group_by_s']:.2f} s). PPO reads the newest "
            f"{reads['replay_limit']:,} experiences besides ({reads['replay_s'] * 1e3:.1f} ms). "
            f"Applying the steps is {ucb['apply_s']:.3f} s in {ucb['queries']:,} SQL queries.",
        ]
    for bandit in results["regret"]:
        rows = bandit["rows"]
        soft = rows["softmax"]
        sel = soft.get("selection", {})
        low = rows.get(f"softmax tau={SOFTMAX_LOW_TAU:g}")
        line = (
            f"- **Regret, {bandit['arms']} arms**: UCB1 "
            f"{rows['ucb1']['ours']['mean']:,.0f} vs {rows['ucb1']['mab']['mean']:,.0f} (the same "
            "index, so equal up to noise); epsilon-greedy "
            f"{rows['epsilon_greedy']['ours']['mean']:,.0f} vs "
            f"{rows['epsilon_greedy']['mab']['mean']:,.0f}; softmax at the default temperature "
            f"{DEFAULTS['temperature']:g} {soft['ours']['mean']:,.0f} vs "
            f"{soft['mab']['mean']:,.0f}, "
            f"{100 * soft['ours']['mean'] / bandit['uniform']:.0f}% and "
            f"{100 * soft['mab']['mean'] / bandit['uniform']:.0f}% of uniform "
            f"({bandit['uniform']:,.0f})."
        )
        if sel:
            line += (
                " MABWiser picks the argmax of a Dirichlet(p) draw, slightly greedier than "
                f"sampling p: at the true means that alone is {sel['sample_p']:,.0f} vs "
                f"{sel['dirichlet_argmax']:,.0f} over the run."
            )
        if low:
            line += (
                f" At temperature {SOFTMAX_LOW_TAU:g}: {low['ours']['mean']:,.0f} vs "
                f"{low['mab']['mean']:,.0f}"
            )
            low_sel = low.get("selection")
            line += (
                f" (the pick alone at the true means: {low_sel['sample_p']:,.0f} vs "
                f"{low_sel['dirichlet_argmax']:,.0f})."
                if low_sel
                else "."
            )
        ppo = rows.get("ppo")
        if ppo:
            line += (
                f" PPO (no counterpart, refit every {ppo['refit_every']} rounds): "
                f"{ppo['ours']['mean']:,.0f}."
            )
        notes.append(line)
    return [*notes, ""]


def _sql_share(e2e: Mapping[str, Any]) -> str:
    """The profiled time spent inside SQLite's execute, against the ORM and Python around it."""
    for row in e2e["profile"]["top"]:
        if "SQLiteCursorWrapper.execute" in row["function"]:
            return (
                f" Under the profiler, SQLite's own `execute` of the {row['calls']:,} statements "
                f"takes {row['tottime']:.2f} s: most of the apply is Django building queries and "
                "model instances, one row at a time."
            )
    return ""


def _regret_block(bandit: Mapping[str, Any]) -> list[str]:
    rows = []
    for label, r in bandit["rows"].items():
        refit = f", refit every {r['refit_every']}" if r["refit_every"] > 1 else ""
        rows.append(
            [
                f"`{label}`{refit}",
                _pm(r["ours"]),
                r.get("mab_label", "(none)"),
                _pm(r["mab"]) if "mab" in r else "",
                f"{r['ours_s_per_run']:.2f} / {r['mab_s_per_run']:.2f}"
                if "mab" in r
                else f"{r['ours_s_per_run']:.2f} / -",
                r.get("verdict", ""),
            ]
        )
    return [
        f"**Cumulative (expected) regret, {bandit['arms']} arms x {bandit['rounds']:,} rounds, "
        f"{bandit['seeds']} seeds** (mean ± sd over seeds; sum of best mean - chosen mean; "
        "sequential: each round one decision, its reward, one update; MABWiser first pulls each "
        "arm once, counted, because it values untried arms at 0). Uniform random: "
        f"{bandit['uniform']:,.1f}; Auer's UCB1 bound: {bandit['ucb1_bound']:,.1f}.",
        "",
        _table(
            ["ours", "regret", "MABWiser", "regret", "s per run, ours / MABWiser", ""],
            rows,
            "lrlrrr",
        ),
        "",
    ]


def _e2e_block(e2e: Mapping[str, Any], fit: Mapping[str, Any]) -> list[str]:
    s = e2e["settings"]
    sizes = e2e["sizes"]
    rows = []
    for size in sizes:
        load = e2e["loads"][str(size)]
        for name in STRATEGIES:
            a = e2e["adapts"][f"{name}@{size}"]
            rows.append(
                [
                    f"{size:,}",
                    name,
                    f"{a['total_s']:.3f}",
                    f"{a['read_s'] * 1e3:,.1f}",
                    f"{a['strategy_s'] * 1e3:,.1f}",
                    f"{a['apply_s']:.3f}",
                    f"{a['queries']:,}",
                    f"{a['moved']:,}",
                    f"{load['backfill_s']:.2f}" if name == STRATEGIES[0] else "",
                ]
            )
    large = sizes[-1]
    load = e2e["loads"][str(large)]
    ucb = e2e["adapts"][f"ucb1@{large}"]
    phase_rows = [
        [label, f"{ucb['calls'].get(label, 1):,}", f"{secs:.4f}"]
        for label, secs in sorted(ucb["phases"].items(), key=lambda item: -item[1])
    ]
    prof = e2e["profile"]
    prof_rows = [
        [f"`{r['function']}`", f"{r['calls']:,}", f"{r['tottime']:.3f}", f"{r['cumtime']:.3f}"]
        for r in prof["top"][:12]
    ]
    probe_rows = []
    for size in sizes:
        r = e2e["reads"][str(size)]
        probe_rows.append(
            [
                f"{size:,}",
                f"{r['sums_s'] * 1e3:.1f}",
                f"{r['replay_s'] * 1e3:.1f} ({r['replay_rows']:,} rows)",
                f"{r['fetch_all_s'] * 1e3:,.0f}",
                f"{r['group_by_s'] * 1e3:,.0f}",
            ]
        )
    return [
        "**End to end in Django** (`refinement.adapt.adapt_run(principal=<agent>, "
        'component_name="", strategy=s)`, in-process, on a fresh migrated SQLite database with '
        f"the first {sizes[0]:,} and then all {large:,} of the same experiences ({load['db_mb']:.0f} "
        f"MiB), loaded by `executemany`, plus {load['arms']:,} `ComponentStats` rows and the "
        "reward buckets by `rebuild_rewards` (the backfill column: what an existing database "
        "pays once); the database is restored from a copy before each adapt so that each starts "
        f"from weights never set; DJANGO_DEBUG={int(s['debug'])}, auto-apply risk "
        f"`{s['auto_apply_max_risk']}` (a step of at most {s['max_step']:g} per weight), "
        f"`LEARNPORTAL_ADAPT_WINDOW` {s['adapt_window']:,}, `LEARNPORTAL_REPLAY_WINDOW` "
        f"{s['replay_window']:,}. Read = `components` + `load_evidence`; apply = everything else "
        "(plan, the steps applied as one refinement, the remaining steps filed for review, "
        "history, stats):",
        "",
        _table(
            [
                "experiences",
                "strategy",
                "total s",
                "read ms",
                "strategy ms",
                "apply s",
                "SQL queries",
                "moved",
                "backfill s",
            ],
            rows,
        ),
        "",
        *(
            [
                f"**Beside an adapt**: a stats read of one component (`component_records`, what "
                "learn/stats/req reads) in a thread of its own every 2 ms took "
                f"{lat['idle_ms_p50']:.2f} ms at the median and {lat['idle_ms_p95']:.2f} ms at "
                f"the 95th percentile alone ({lat['idle_n']:,} reads), and "
                f"{lat['busy_ms_p50']:.2f} / {lat['busy_ms_p95']:.2f} ms (worst "
                f"{lat['busy_ms_max']:.1f}) while {lat['adapts']} ucb1 adapts of "
                f"{lat['adapt_s']:.3f} s each ran back to back in the same process "
                f"({lat['busy_n']:,} reads): the threads share one interpreter, as the requests "
                "of one server process do. On SQLite a write waits for the adapt's commit.",
                "",
            ]
            if (lat := e2e.get("latency"))
            else []
        ),
        "The read, alone (best of a few, ms): the kept sums (`load_evidence(replay=False)`), with "
        "PPO's bounded replay, and the reads it replaced: every experience fetched, and a SQL "
        "GROUP BY over them:",
        "",
        _table(["experiences", "sums", "sums + replay", "fetch every row", "GROUP BY"], probe_rows),
        "",
        f"The phases of the ucb1 adapt at {large:,} ({ucb['total_s']:.3f} s; exclusive seconds: "
        "a phase excludes the phases timed inside it; functions wrapped in the bench process only"
        + (
            f"; not found, so not timed: {', '.join(f'`{u}`' for u in ucb['untimed'])}"
            if ucb.get("untimed")
            else ""
        )
        + "):",
        "",
        _table(["phase", "calls", "s"], phase_rows),
        "",
        f"cProfile of one ucb1 `adapt_run` ({prof['wall_s']:.2f} s under the profiler), top "
        "functions by own time:",
        "",
        _table(["function", "calls", "tottime s", "cumtime s"], prof_rows, "lrrr"),
        "",
    ]


def write(path: Path, results: Mapping[str, Any]) -> None:
    """Replace the adapt block, or append it at the end; nothing else in the file changes."""
    from bench.report import write_marked_block

    write_marked_block(path, "adapt", block(results))


# --- main -----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.adapt", description=__doc__.split("\n", 1)[0]
    )
    parser.add_argument("--quick", action="store_true", help="small sizes; writes no file")
    parser.add_argument("--seed", type=int, default=20261, help="seed of the logged data")
    parser.add_argument("--skip-e2e", action="store_true", help="no Django end-to-end part")
    parser.add_argument(
        "--e2e-only", action="store_true", help="only the fit and the end-to-end part (no regret)"
    )
    parser.add_argument(
        "--output",
        default=None,
        help="markdown file whose adapt block is replaced (default: BENCHMARKS.md, or none "
        "with --quick; '-' for none)",
    )
    parser.add_argument(
        "--report",
        metavar="JSON",
        help="run nothing: render the figures of an earlier run (bench-results/last-adapt.json)",
    )
    parser.add_argument(
        "--size", metavar="ARMS,EXPERIENCES", help="other sizes than --quick's or the full run's"
    )
    parser.add_argument("--worker", metavar="TASK_JSON", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        result = worker(Path(args.worker))
        print(orjson.dumps(result, option=orjson.OPT_SERIALIZE_NUMPY).decode(), flush=True)
        return 0
    if args.report:
        recorded = orjson.loads(Path(args.report).read_bytes())
        print(summary(recorded))
        output = args.output or str(ROOT / "BENCHMARKS.md")
        if output != "-":
            write(Path(output), recorded)
            log(f"wrote {output}")
        return 0
    try:
        import mabwiser  # noqa: F401
    except ImportError:
        print("bench.adapt needs MABWiser: pip install '.[bench]'", file=sys.stderr)
        return 1
    sizes = dict(QUICK if args.quick else FULL)
    if args.size:
        arms, experiences = (int(x) for x in args.size.split(","))
        sizes |= {"arms": arms, "experiences": experiences}
    load_before = os.getloadavg()
    started = time.time()
    params = dict(DEFAULTS)
    log(f"bench.adapt: {sizes['arms']:,} arms x {sizes['experiences']:,} experiences")
    data = make_data(sizes["arms"], sizes["experiences"], args.seed)
    results: dict[str, Any] = {"sizes": sizes}
    results["fit"] = fit_section(data, sizes["repeats"], params)
    results["regret"] = [
        regret_section(arms, rounds, seeds, sizes["ppo_refit"], params)
        for arms, rounds, seeds in ([] if args.e2e_only else sizes["bandits"])
    ]
    if not args.skip_e2e:
        results["e2e"] = e2e_section(data, sizes)
    command = "python -m bench.adapt " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )
    results["meta"] = machine() | {
        "command": command.strip(),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "seconds": time.time() - started,
        "load": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "arms": sizes["arms"],
        "experiences": sizes["experiences"],
        "repeats": sizes["repeats"],
        "seed": args.seed,
        "params": {k: DEFAULTS[k] for k in PARAMS},
    }
    print(summary(results))
    out_dir = ROOT / "bench-results"
    out_dir.mkdir(exist_ok=True)
    raw = out_dir / f"last-adapt{'-quick' if args.quick else ''}.json"
    raw.write_bytes(orjson.dumps(results, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_INDENT_2))
    log(f"raw figures in {raw.relative_to(ROOT)}")
    output = args.output or ("-" if args.quick else str(ROOT / "BENCHMARKS.md"))
    if output != "-":
        write(Path(output), results)
        log(f"wrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
