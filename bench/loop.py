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

from refinement.strategies import BUILTIN_STRATEGIES, Evidence, check_params
from refinement.strategies.base import relative_to_best
from refinement.strategies.thompson import thompson
from refinement.trust_region import MOVED, PRECISION, max_step, step_toward

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
WINDOW_NONSTATIONARY = 500  # LEARNPORTAL_ADAPT_WINDOW for the swapped run
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
    the 6-decimal rounding; components in name order, a replay window of the newest `window`
    experiences. For sweeping parameters fast; the table itself comes from `LiveHost`.
    """

    params: Mapping[str, float]
    window: int = 1_000_000
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
        rows = self.rows[-self.window :]
        evidence = Evidence(
            len(names),
            np.array([index[r[0]] for r in rows], dtype=np.int64),
            np.array([r[1] for r in rows], dtype=np.float64),
            np.array([np.nan if r[2] is None else r[2] for r in rows], dtype=np.float64),
            np.array([self.weights.get(n, 0.5) for n in names], dtype=np.float64),
        )
        fn: StrategyFn = thompson if strategy == "custom" else BUILTIN_STRATEGIES[strategy]
        target = relative_to_best(fn(evidence, self.params))
        for name, wanted in zip(names, target, strict=True):
            current = self.weights.get(name, 0.5)
            new = step_toward(current, round(float(wanted), PRECISION), STEP)
            if abs(new - current) > MOVED:
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

    def follow_turns(self, swap_at: int) -> int | None:
        """Turns after the swap until the new best arm has the top weight for good (None: never)."""
        best = self.means[-1].argmax()
        tops = self.weights.argmax(axis=1) == best
        start = swap_at // BATCH
        for batch in range(start, tops.size):
            if tops[batch:].all():
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
