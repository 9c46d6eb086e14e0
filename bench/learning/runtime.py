"""A simulated runtime routed by a host: 10 components of Bernoulli quality 0.1 … 0.9 chosen each
turn by the host's weights renormalised over them, a batch of 20 turns reported as experiences,
an adapt after each batch; and offline Thompson sampling on the same arms, the baseline.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from refinement.trust_region import max_step

ARMS = np.linspace(0.1, 0.9, 10)  # the agent's components' success rates
AGENT = [f"arm-{i}" for i in range(ARMS.size)]
DEMO = ["demo-search", "demo-summarise", "demo-translate"]  # feedback only: untried
OTHERS = {"other-fast": 0.6, "other-slow": 0.3}  # another agent's, with experiences
OTHER_CALLS = 100
BATCH = 20
STEP = max_step("low")  # the auto-apply step at the default risk limit
SWAP = (9, 5)  # the best arm's quality goes to arm 5, arm 5's to the best
INVERSION_TOLERANCE = 0.01


class Host(Protocol):
    """What a runtime does with a portal: read weights, report experiences, ask for an adapt."""

    def routing(self) -> dict[str, float]: ...

    def report(self, experiences: list[dict[str, Any]]) -> None: ...

    def feedback(self, component: str, score: float) -> None: ...

    def adapt(self, strategy: str) -> None: ...


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
