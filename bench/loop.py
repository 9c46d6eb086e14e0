"""`python -m bench.loop [--quick]`: does an agent routed by LearnPortal learn? (issue 8)

A simulated runtime with 10 components of Bernoulli quality 0.1 … 0.9 (`ARMS`) chooses each turn
among them by the `/api/routing/` weights renormalised over its candidates, reports each batch
of 20 turns as experiences with `action_prob` and `success`, and asks for an adapt after every
batch, on a fresh portal per strategy and seed, exactly as a runtime would (`LiveHost`: a server
started on a free port, public API only). Other components are present all along: three demo
components that only have feedback (untried by the evidence) and two of another agent's
components with experiences of their own, which this runtime never chooses.

Against Thompson sampling run offline on the same arms and seeds (`offline_thompson`), it prints
per strategy: success over the last 500 turns as a share of the best arm's quality, cumulative
(expected) regret and its ratio to Thompson's, the final weights with the number of inverted
pairs, the largest step any adapt made to a weight, and in a second run where the best arm's
quality is swapped with another's at turn 1000, how many turns the weights take to follow.

The parameter sweep (`--sweep`) runs the same loop on `ModelHost`, an in-process model of the
host's adapt (the same strategy functions, the same `relative_to_best` and trust-region
arithmetic, no database), which is how the defaults were chosen; the table is the live run.
Rewrites the `<!-- bench:loop:... -->` block of BENCHMARKS.md (not with --quick).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from feedback.reward_window import first_bucket, span_for
from refinement.strategies import BUILTIN_STRATEGIES, Evidence, check_params
from refinement.strategies.base import relative_to_best
from refinement.strategies.thompson import thompson
from refinement.strategy_registry import REPLAY_STRATEGIES
from refinement.trust_region import changes_weight, max_step, step_toward, weight_rounded

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from refinement.strategies import StrategyFn

ROOT = Path(__file__).resolve().parent.parent
MARK_START = "<!-- bench:loop:start -->"
MARK_END = "<!-- bench:loop:end -->"

ARMS = np.linspace(0.1, 0.9, 10)  # the agent's components' success rates
AGENT = [f"arm-{i}" for i in range(ARMS.size)]
DEMO = ["demo-search", "demo-summarise", "demo-translate"]  # feedback only: untried
OTHERS = {"other-fast": 0.6, "other-slow": 0.3}  # another agent's, with experiences
OTHER_CALLS = 100
BATCH = 20
STEP = max_step("low")  # the auto-apply step at the default risk limit
STRATEGIES = ("ucb1", "epsilon_greedy", "softmax", "ppo", "custom")
CUSTOM = "refinement.strategies.thompson.thompson"
SWAP_AT = 1000
SWAP = (9, 5)  # the best arm's quality goes to arm 5, arm 5's to the best
WINDOW_NONSTATIONARY = 200  # LEARNPORTAL_ADAPT_WINDOW for the swapped run
REPLAY_WINDOW = 10_000  # LEARNPORTAL_REPLAY_WINDOW's default
INVERSION_TOLERANCE = 0.01
TARGETS = {"last500": 0.9, "regret_x": 3.0, "best_regret_x": 2.0, "follow": 500}

FULL: dict[str, Any] = {"turns": 2000, "seeds": [0, 1, 2, 3, 4]}
QUICK: dict[str, Any] = {"turns": 600, "seeds": [0]}

# Settings names of the strategy parameters, for a live server's environment.
VARIABLES = {
    "epsilon": "LEARNPORTAL_EPSILON",
    "temperature": "LEARNPORTAL_SOFTMAX_TEMPERATURE",
    "ucb_c": "LEARNPORTAL_UCB_C",
    "ucb_horizon": "LEARNPORTAL_UCB_HORIZON",
    "ppo_clip": "LEARNPORTAL_PPO_CLIP",
    "ppo_epochs": "LEARNPORTAL_PPO_EPOCHS",
    "ppo_lr": "LEARNPORTAL_PPO_LR",
    "ppo_entropy": "LEARNPORTAL_PPO_ENTROPY",
}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- the host, as a runtime sees it ---------------------------------------------------------


class Host(Protocol):
    """What a runtime does with a portal: read weights, report experiences, ask for an adapt."""

    def routing(self) -> dict[str, float]: ...

    def report(self, experiences: list[dict[str, Any]]) -> None: ...

    def feedback(self, component: str, score: float) -> None: ...

    def adapt(self, strategy: str) -> None: ...


@dataclass
class ModelHost:
    """adapt without Django: the arithmetic of `refinement.adapt.adapt_run` on in-memory rows.

    The same strategy functions, `relative_to_best`, `step_toward` at the auto-apply step and
    the 6-decimal rounding; components in name order, each component's count and reward sum
    over the newest `window` experiences as the host's buckets count them (ids from 1 in order
    of arrival: feedback.reward_window), and for PPO and custom the newest `replay` of them
    one by one. For sweeping parameters fast; the table itself comes from `LiveHost`.
    """

    params: Mapping[str, float]
    window: int = 1_000_000
    replay: int = REPLAY_WINDOW
    weights: dict[str, float] = field(default_factory=dict)
    rows: list[tuple[str, float, float | None]] = field(default_factory=list)
    known: set[str] = field(default_factory=set)

    def routing(self) -> dict[str, float]:
        return dict(self.weights)

    def report(self, experiences: list[dict[str, Any]]) -> None:
        for item in experiences:
            action = item["action"]
            self.known.add(action["component_name"])
            self.rows.append((action["component_name"], item["reward"], action["action_prob"]))

    def feedback(self, component: str, score: float) -> None:
        self.known.add(component)

    def adapt(self, strategy: str) -> None:
        names = sorted(self.known)
        index = {name: i for i, name in enumerate(names)}
        latest = len(self.rows)
        ids = np.arange(1, latest + 1)
        counted = (ids - 1) // span_for(self.window) >= first_bucket(latest, self.window)
        arms = np.array([index[r[0]] for r in self.rows], dtype=np.int64)[counted]
        rewards = np.clip(np.array([r[1] for r in self.rows], dtype=np.float64), -1, 1)[counted]
        counts = np.bincount(arms, minlength=len(names)).astype(np.float64)
        sums = np.bincount(arms, weights=rewards, minlength=len(names))
        replay = strategy in REPLAY_STRATEGIES
        rows = self.rows[-min(self.window, self.replay) :] if replay else []
        evidence = Evidence(
            len(names),
            np.array([index[r[0]] for r in rows], dtype=np.int64),
            np.array([r[1] for r in rows], dtype=np.float64),
            np.array([np.nan if r[2] is None else r[2] for r in rows], dtype=np.float64),
            np.array([self.weights.get(n, 0.5) for n in names], dtype=np.float64),
            counts,
            sums,
        )
        fn: StrategyFn = thompson if strategy == "custom" else BUILTIN_STRATEGIES[strategy]
        target = relative_to_best(fn(evidence, self.params))
        for name, wanted in zip(names, target, strict=True):
            current = self.weights.get(name, 0.5)
            new = step_toward(current, weight_rounded(float(wanted)), STEP)
            if changes_weight(current, new):
                self.weights[name] = new


# --- the runtime ----------------------------------------------------------------------------


@dataclass
class LoopResult:
    """One run of the loop: what was chosen and paid, and the weights after every adapt."""

    means: np.ndarray  # (turns, n_arms): each arm's quality at each turn (a swap changes it)
    choices: np.ndarray  # int64 (turns,)
    success: np.ndarray  # bool (turns,)
    weights: np.ndarray  # (batches + 1, n_arms): the agent's weights before each batch, last after
    max_step: float  # largest change of any weight (every component's) by one adapt

    @property
    def regret(self) -> float:
        turns = np.arange(self.choices.size)
        best = self.means.max(axis=1)
        return float((best - self.means[turns, self.choices]).sum())

    def last_share(self, last: int = 500) -> float:
        """Success over the last turns as a share of the best arm's quality then."""
        return float(self.success[-last:].mean() / self.means[-last:].max(axis=1).mean())

    def follow_turns(self, swap_at: int, hold: int = 200) -> int | None:
        """Turns after the swap until the new best arm has the top weight for `hold` turns on end.

        None: never within the run. A tie counts as the top.
        """
        best = self.means[-1].argmax()
        tops = self.weights[:, best] >= self.weights.max(axis=1) - 1e-9
        start, span = swap_at // BATCH, hold // BATCH
        for batch in range(start, tops.size - span + 1):
            if tops[batch : batch + span].all():
                return batch * BATCH - swap_at
        return None


def inverted_pairs(weights: np.ndarray, quality: np.ndarray) -> int:
    """Pairs of the agent's arms where the better one weighs less (beyond stored rounding).

    "Beyond rounding" is `INVERSION_TOLERANCE`: 1% of the top weight, i.e. of the traffic
    the most favoured component gets; two arms both starved to a few thousandths of it differ
    by the luck of their last few pulls, and a runtime cannot tell them apart either.
    """
    count = 0
    for i, j in itertools.combinations(range(quality.size), 2):
        better, worse = (i, j) if quality[i] > quality[j] else (j, i)
        if weights[better] < weights[worse] - INVERSION_TOLERANCE * weights.max():
            count += 1
    return count


def choose(weights: dict[str, float], rng: np.random.Generator) -> tuple[int, float]:
    """A runtime's choice: weights (0.5 if never set) renormalised over the candidates."""
    w = np.array([weights.get(name, 0.5) for name in AGENT])
    total = w.sum()
    p = w / total if total > 0 else np.full(w.size, 1.0 / w.size)
    arm = min(int(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), "right")), p.size - 1)
    return arm, float(p[arm])


def seed_others(host: Host, rng: np.random.Generator) -> None:
    """Other components the portal knows: demo ones rated only, another agent's with calls."""
    for name in DEMO:
        host.feedback(name, 0.8)
    experiences = []
    for name, quality in OTHERS.items():
        for _ in range(OTHER_CALLS):
            ok = bool(rng.random() < quality)
            experiences.append(experience(name, ok, 1.0 / len(OTHERS)))
    host.report(experiences)


_ids = itertools.count()


def experience(component: str, success: bool, action_prob: float) -> dict[str, Any]:
    return {
        "experience_id": f"exp-{time.time_ns()}-{next(_ids)}",
        "action": {"component_name": component, "success": success, "action_prob": action_prob},
        "reward": 1.0 if success else -1.0,
    }


def run_loop(
    host: Host,
    strategy: str,
    *,
    turns: int,
    seed: int,
    swap_at: int | None = None,
) -> LoopResult:
    """The runtime's loop: per batch read the weights, play, report, adapt."""
    rng = np.random.default_rng(seed)
    seed_others(host, rng)
    quality = ARMS.copy()
    means = np.zeros((turns, ARMS.size))
    choices = np.zeros(turns, dtype=np.int64)
    success = np.zeros(turns, dtype=bool)
    snapshots = []
    largest = 0.0
    weights = host.routing()
    for start in range(0, turns, BATCH):
        snapshots.append([weights.get(name, 0.5) for name in AGENT])
        batch = []
        for t in range(start, min(start + BATCH, turns)):
            if swap_at is not None and t == swap_at:
                quality[list(SWAP)] = quality[list(SWAP[::-1])]
            means[t] = quality
            arm, prob = choose(weights, rng)
            ok = bool(rng.random() < quality[arm])
            choices[t], success[t] = arm, ok
            batch.append(experience(AGENT[arm], ok, prob))
        host.report(batch)
        host.adapt(strategy)
        after = host.routing()
        names = set(after) | set(weights)
        moved = max((abs(after.get(n, 0.5) - weights.get(n, 0.5)) for n in names), default=0.0)
        largest = max(largest, moved)
        weights = after
    snapshots.append([weights.get(name, 0.5) for name in AGENT])
    return LoopResult(means, choices, success, np.array(snapshots), largest)


def offline_thompson(turns: int, seed: int, swap_at: int | None = None) -> LoopResult:
    """Textbook Beta-Bernoulli Thompson sampling, updated every turn, on the same arms."""
    rng = np.random.default_rng(seed)
    quality = ARMS.copy()
    alpha, beta = np.ones(ARMS.size), np.ones(ARMS.size)
    means = np.zeros((turns, ARMS.size))
    choices = np.zeros(turns, dtype=np.int64)
    success = np.zeros(turns, dtype=bool)
    for t in range(turns):
        if swap_at is not None and t == swap_at:
            quality[list(SWAP)] = quality[list(SWAP[::-1])]
        means[t] = quality
        arm = int(rng.beta(alpha, beta).argmax())
        ok = bool(rng.random() < quality[arm])
        choices[t], success[t] = arm, ok
        alpha[arm] += ok
        beta[arm] += not ok
    return LoopResult(means, choices, success, np.zeros((1, ARMS.size)), 0.0)


# --- summaries ------------------------------------------------------------------------------


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


# --- a live portal --------------------------------------------------------------------------


class LiveHost:
    """A runtime's side of a live portal: its public HTTP API, one keep-alive connection."""

    def __init__(self, base_url: str, token: str) -> None:
        import httpx

        self.client = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            timeout=120,
        )

    def close(self) -> None:
        self.client.close()

    def _learn(self, body: dict[str, Any]) -> dict[str, Any]:
        import orjson

        response = self.client.post("/api/learn/", content=orjson.dumps(body))
        reply: dict[str, Any] = response.json()
        if response.status_code != 200 or reply.get("type") == "learn/error":
            raise RuntimeError(f"{body['type']} refused: {response.status_code} {reply}")
        return reply

    def routing(self) -> dict[str, float]:
        response = self.client.get("/api/routing/")
        response.raise_for_status()
        weights: dict[str, float] = response.json()["weights"]
        return weights

    def report(self, experiences: list[dict[str, Any]]) -> None:
        self._learn({"type": "learn/experience/req", "id": _req(), "experiences": experiences})

    def feedback(self, component: str, score: float) -> None:
        item = {
            "feedback_id": f"fb-{time.time_ns()}-{next(_ids)}",
            "polarity": "positive",
            "score": score,
            "component_name": component,
        }
        self._learn({"type": "learn/feedback/req", "id": _req(), "feedbacks": [item]})

    def adapt(self, strategy: str) -> None:
        self._learn({"type": "learn/adapt/req", "id": _req(), "strategy": strategy})


def _req() -> str:
    return f"req-{next(_ids)}"


def server_env(strategy: str, params: Mapping[str, float], window: int) -> dict[str, str]:
    """The settings a portal for one strategy runs with: its parameters, the custom path."""
    env = {VARIABLES[k]: f"{v:g}" for k, v in params.items() if k in VARIABLES}
    env["LEARNPORTAL_ADAPT_WINDOW"] = str(window)
    if strategy == "custom":
        env["LEARNPORTAL_CUSTOM_STRATEGY"] = CUSTOM
    return env


class Portals:
    """Fresh portals on SQLite: one migrated template, copied for every run, served by uvicorn."""

    def __init__(self) -> None:
        from bench.environment import Database, app_env, manage

        self.database = Database(None)
        self.template_env = app_env(self.database.create("loop-template"), debug=False)
        manage(self.template_env, "migrate", "--no-input", "-v", "0")
        self.token = manage(self.template_env, "createtoken", "loop-agent", "--role", "agent")
        self.runs = 0

    def run(
        self,
        strategy: str,
        params: Mapping[str, float],
        *,
        turns: int,
        seed: int,
        swap_at: int | None = None,
        window: int = 1_000_000,
    ) -> LoopResult:
        import shutil

        from bench.environment import Server

        self.runs += 1
        source = Path(self.template_env["LEARNPORTAL_VAR_DIR"])
        var_dir = source.parent / f"loop-{self.runs}"
        var_dir.mkdir()
        shutil.copy(source / "learnportal.sqlite3", var_dir / "learnportal.sqlite3")
        env = dict(self.template_env, LEARNPORTAL_VAR_DIR=str(var_dir))
        env.update(server_env(strategy, params, window))
        server = Server("uvicorn", env, var_dir / "server.log")
        server.start(self.token)
        host = LiveHost(server.base_url, self.token)
        try:
            return run_loop(host, strategy, turns=turns, seed=seed, swap_at=swap_at)
        except Exception as error:
            raise RuntimeError(f"{error}\n{server.log_tail()}") from error
        finally:
            host.close()
            server.stop()
            shutil.rmtree(var_dir, ignore_errors=True)

    def close(self) -> None:
        self.database.drop_all()


# --- the table ------------------------------------------------------------------------------

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
        "the top weight, counted over every seed's final weights.",
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
        params = row["params"]
        shown = ", ".join(f"{k}={v:.4g}" for k, v in params.items())
        if all(math.isclose(defaults[k], v) for k, v in params.items()):
            shown = f"**{shown}**"
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
        params = row["params"]
        shown = ", ".join(f"{k}={v:.4g}" for k, v in params.items())
        if all(math.isclose(defaults[k], v) for k, v in params.items()):
            shown = f"**{shown}**"
        follow = ", ".join("never" if f is None else str(f) for f in row["follow"])
        lines.append(f"| {row['strategy']} | {shown} | {follow} |")
    return "\n".join(lines)


def write_block(path: Path, text: str) -> None:
    content = path.read_text() if path.exists() else ""
    block = f"{MARK_START}\n{text}\n{MARK_END}"
    if MARK_START in content and MARK_END in content:
        head, rest = content.split(MARK_START, 1)
        _, tail = rest.split(MARK_END, 1)
        content = head + block + tail
    else:
        content = content.rstrip() + "\n\n## The learning loop (issue 8)\n\n" + block + "\n"
    path.write_text(content)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loop", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="600 turns, one seed")
    parser.add_argument(
        "--sweep", action="store_true", help="only the parameter sweep, on the model of the host"
    )
    parser.add_argument("--output", default=None, help="markdown file ('-': none)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    turns, seeds = sizes["turns"], sizes["seeds"]
    if args.sweep:
        print(render_sweep(sweep(seeds, turns), seeds, turns))
        print("\n" + render_swap_sweep(swap_sweep(seeds, turns), seeds, turns))
        return 0
    swap_seeds = seeds
    meta, rows = live_table(seeds, turns, swap_seeds)
    text = render(meta, rows, TARGETS["follow"] * turns // 2000)
    if not args.quick:
        text += "\n\n" + render_sweep(sweep(seeds, turns), seeds, turns)
        text += "\n\n" + render_swap_sweep(swap_sweep(seeds, turns), seeds, turns)
    print(text)
    output = args.output or ("-" if args.quick else str(ROOT / "BENCHMARKS.md"))
    if output != "-":
        write_block(Path(output), text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
