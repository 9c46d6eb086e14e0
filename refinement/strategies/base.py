"""What every routing strategy sees and returns, plus the few helpers they share.

Pure numpy, no Django: the host builds an `Evidence` from its stores and calls a `StrategyFn`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Evidence:
    """Everything a strategy may look at, aligned by arm index 0..n_arms-1.

    Two views of the experiences: per-arm sufficient statistics (`counts`, `reward_sums`) over
    the adapt window, which the value-based strategies read and the host keeps up to date at
    ingest, and the recorded experiences themselves (`arm`, `reward`, `behaviour_prob`), a
    bounded recent replay window that PPO reads. The host may leave the replay window empty
    for a strategy that does not read it. Left out, the sums are computed from the replay.
    """

    n_arms: int
    arm: np.ndarray  # int64, shape (n,), the arm chosen in each recorded experience, in time order
    reward: np.ndarray  # float64, shape (n,), rewards in [-1, 1]
    behaviour_prob: np.ndarray  # float64, shape (n,), prob. the arm had when chosen (nan: unknown)
    current: np.ndarray  # float64, shape (n_arms,), weights in force, in [0, 1]; 0.5: never set
    counts: np.ndarray | None = None  # float64, shape (n_arms,), experiences of each arm
    reward_sums: np.ndarray | None = None  # float64, shape (n_arms,), their rewards summed

    def __post_init__(self) -> None:
        # Coerce once here so that every strategy can trust dtypes, shapes and ranges; a bad arm
        # index would otherwise make np.bincount silently grow the arm axis.
        arrays = {
            "arm": np.asarray(self.arm, dtype=np.int64),
            "reward": np.asarray(self.reward, dtype=np.float64),
            "behaviour_prob": np.asarray(self.behaviour_prob, dtype=np.float64),
            "current": np.asarray(self.current, dtype=np.float64),
        }
        for name, value in arrays.items():
            object.__setattr__(self, name, value)
        self._check_replay()
        if (self.counts is None) != (self.reward_sums is None):
            raise ValueError("counts and reward_sums come together, or neither")
        if self.counts is None:
            counts = np.bincount(self.arm, minlength=self.n_arms).astype(np.float64)
            sums = np.bincount(self.arm, weights=self.reward, minlength=self.n_arms)
        else:
            counts = np.asarray(self.counts, dtype=np.float64)
            sums = np.asarray(self.reward_sums, dtype=np.float64)
            if counts.shape != (self.n_arms,) or sums.shape != (self.n_arms,):
                raise ValueError(f"counts and reward_sums must have shape ({self.n_arms},)")
            if not _all_within(counts, 0.0, math.inf) or not np.isfinite(sums).all():
                raise ValueError("counts must be finite and >= 0, reward_sums finite")
            if (np.abs(sums) > counts * (1.0 + 1e-9) + 1e-9).any():
                raise ValueError("a reward sum exceeds its count: rewards are in [-1, 1]")
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "reward_sums", sums)

    def _check_replay(self) -> None:
        if int(self.n_arms) != self.n_arms or self.n_arms < 1:
            raise ValueError(f"n_arms must be a positive integer, got {self.n_arms!r}")
        n = self.arm.shape
        if self.arm.ndim != 1 or self.reward.shape != n or self.behaviour_prob.shape != n:
            raise ValueError("arm, reward and behaviour_prob must be 1-D arrays of one length")
        if self.current.shape != (self.n_arms,):
            raise ValueError(f"current must have shape ({self.n_arms},), got {self.current.shape}")
        if self.arm.size and (self.arm.min() < 0 or self.arm.max() >= self.n_arms):
            raise ValueError(f"arm indices must be in [0, {self.n_arms - 1}]")
        if not _all_within(self.reward, -1.0, 1.0):
            raise ValueError("reward must be finite and in [-1, 1]")
        known = self.behaviour_prob[~np.isnan(self.behaviour_prob)]
        if known.size and (known.min() <= 0.0 or known.max() > 1.0):
            raise ValueError("behaviour_prob must be in (0, 1], or nan where unknown")
        if not _all_within(self.current, 0.0, 1.0):
            raise ValueError("current weights must be finite and in [0, 1]")

    @classmethod
    def from_sums(
        cls,
        counts: np.ndarray | list[float],
        reward_sums: np.ndarray | list[float],
        *,
        current: np.ndarray | list[float] | None = None,
    ) -> Evidence:
        """Evidence of per-arm counts and reward sums alone, with an empty replay window."""
        counts = np.asarray(counts, dtype=np.float64)
        n_arms = int(counts.size)
        empty = np.zeros(0)
        return cls(
            n_arms,
            empty.astype(np.int64),
            empty,
            empty,
            np.full(n_arms, 0.5) if current is None else np.asarray(current, dtype=np.float64),
            counts,
            np.asarray(reward_sums, dtype=np.float64),
        )

    @classmethod
    def from_history(
        cls,
        n_arms: int,
        arm: np.ndarray | list[int],
        reward: np.ndarray | list[float],
        *,
        behaviour_prob: np.ndarray | list[float] | None = None,
        current: np.ndarray | list[float] | None = None,
    ) -> Evidence:
        """Evidence with the usual defaults: behaviour unknown, every arm never weighted (0.5)."""
        arm = np.asarray(arm, dtype=np.int64)
        if behaviour_prob is None:
            behaviour_prob = np.full(arm.shape, np.nan)
        if current is None:
            current = np.full(n_arms, 0.5)
        return cls(
            n_arms,
            arm,
            np.asarray(reward, dtype=np.float64),
            np.asarray(behaviour_prob, dtype=np.float64),
            np.asarray(current, dtype=np.float64),
        )

    @property
    def size(self) -> int:
        """Number of recorded experiences."""
        return int(self.arm.size)


StrategyFn = Callable[[Evidence, Mapping[str, float]], np.ndarray]
"""Returns target weights, float64 shape (n_arms,), each in [0, 1], summing to 1."""


@dataclass(frozen=True)
class ParamSpec:
    """A parameter's default and its allowed closed range; `integer` demands a whole number."""

    default: float
    low: float
    high: float
    integer: bool = False
    low_open: bool = False


PARAMS: dict[str, ParamSpec] = {
    "epsilon": ParamSpec(0.03, 0.0, 1.0),
    "temperature": ParamSpec(0.03, 0.0, math.inf, low_open=True),
    "ucb_c": ParamSpec(0.3, 0.0, math.inf),
    "ucb_horizon": ParamSpec(500, 1, 1_000_000, integer=True),
    "ppo_clip": ParamSpec(0.8, 0.0, 1.0),
    "ppo_epochs": ParamSpec(10, 1, 1000, integer=True),
    "ppo_lr": ParamSpec(2.0, 0.0, math.inf, low_open=True),
    "ppo_entropy": ParamSpec(0.01, 0.0, math.inf),
    "ppo_max_grad_norm": ParamSpec(0.5, 0.0, math.inf, low_open=True),
    "ppo_normalize": ParamSpec(1, 0, 1, integer=True),
    # Least weight, relative to the top, of an arm with no experience in the replay window
    # (refinement/strategies/ppo.py says why). Chosen by the loop benchmark's swap run (window
    # 200, seeds 0-4): 0.2 follows the swap within 280-440 turns; 0.03, 0.05 and 0.1 miss on one
    # seed each (560, 780, never). Runs with the default window never use it.
    "ppo_untried_floor": ParamSpec(0.2, 0.0, 1.0),
    "thompson_samples": ParamSpec(1000, 1, 1_000_000, integer=True),
    "seed": ParamSpec(0, 0, 2**63 - 1, integer=True),
}
"""Every parameter a built-in strategy reads, so that settings can be checked at start-up.

The defaults of epsilon, temperature, ucb_c, ucb_horizon and the PPO ones were chosen by the
loop benchmark (bench/loop.py; docs/explanation/routing-weights.md gives each one's figure).
"""


def param(params: Mapping[str, float], name: str) -> float:
    """Read one parameter, defaulted and range-checked, so that bad settings fail loudly."""
    spec = PARAMS[name]
    value = params.get(name, spec.default)
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    too_low = value <= spec.low if spec.low_open else value < spec.low
    if math.isnan(value) or math.isinf(value) or too_low or value > spec.high:
        raise ValueError(f"{name} must be a finite number in {_range(spec)}, got {value}")
    if spec.integer and not value.is_integer():
        raise ValueError(f"{name} must be a whole number, got {value}")
    return value


def check_params(params: Mapping[str, float]) -> dict[str, float]:
    """Resolve every known parameter (defaults filled in), raising ValueError on a bad one."""
    return {name: param(params, name) for name in PARAMS}


def arm_stats(evidence: Evidence) -> tuple[np.ndarray, np.ndarray]:
    """Per-arm pull counts and sums of rewards rescaled to [0, 1] (the scale UCB1 is proved on)."""
    counts, sums = _sums(evidence)
    return counts, (sums + counts) / 2.0


def _sums(evidence: Evidence) -> tuple[np.ndarray, np.ndarray]:
    # Set by __post_init__ always; the Optional is only that of the constructor's argument.
    assert evidence.counts is not None and evidence.reward_sums is not None
    return evidence.counts, evidence.reward_sums


def optimistic_means(evidence: Evidence) -> np.ndarray:
    """Mean rescaled reward per arm; an arm with no data is valued 1.0, the top of the scale.

    Optimism about the unknown (Sutton & Barto's optimistic initial values) makes value-based
    strategies try every arm instead of never looking at one that started unlucky or late.
    """
    counts, sums = arm_stats(evidence)
    means = np.ones(evidence.n_arms)
    tried = counts > 0
    means[tried] = sums[tried] / counts[tried]
    return means


def tried_arms(evidence: Evidence) -> np.ndarray:
    """Which arms have at least one experience in the window (bool, shape (n_arms,))."""
    return _sums(evidence)[0] > 0


def with_untried(shares: np.ndarray, tried: np.ndarray) -> np.ndarray:
    """Shares computed over the tried arms, with every untried arm given the top share.

    Bounded optimism: an arm no one has tried yet weighs as much as the most favoured tried arm,
    so that a runtime offered it tries it soon, yet it takes nothing from the tried arms'
    relative shares, however many untried arms (demo data, other agents' components) exist.
    With no arm tried, every arm weighs the same. The result sums to 1.
    """
    shares = np.where(tried, np.asarray(shares, dtype=np.float64), 0.0)
    top = shares.max() if tried.any() else 0.0
    out = np.where(tried, shares, top if top > 0 else 1.0)
    if not tried.any():
        out = np.ones_like(out)
    return out / out.sum()


def monotone_in(shares: np.ndarray, values: np.ndarray) -> np.ndarray:
    """`shares` raised so that an arm of higher value never has less than one of lower value.

    Each arm gets the largest share among the arms whose value is no higher than its own (equal
    values get equal shares), then the whole is renormalised. For rules whose shares also reward
    uncertainty (UCB1's bonus, Thompson's spread), this keeps what a runtime sees in order: a
    component better on the evidence never weighs less than a worse one, on any candidate set.
    """
    shares = np.asarray(shares, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if shares.size == 0:
        return shares.copy()
    distinct, group = np.unique(values, return_inverse=True)
    best_in_group = np.zeros(distinct.size)
    np.maximum.at(best_in_group, group, shares)
    raised = np.maximum.accumulate(best_in_group)[group]
    total = raised.sum()
    return raised / total if total > 0 else raised


def relative_to_best(target: np.ndarray) -> np.ndarray:
    """A strategy's distribution as routing weights: each arm's share over the top one's.

    A runtime picks among its candidates with probability proportional to their weights, so
    any positive scale gives the same choice on every candidate set; dividing by the largest
    share puts the most favoured arm at 1.0 and so keeps every weight as far from the 6-decimal
    rounding of stored weights as it can be, however many components share the traffic.
    """
    target = np.asarray(target, dtype=np.float64)
    top = target.max() if target.size else 0.0
    return target / top if top > 0 else np.full(target.shape, 1.0)


def argmax_mass(values: np.ndarray) -> np.ndarray:
    """All probability on the largest values, split evenly among ties (to rounding error)."""
    top = values.max()
    best = values >= top - 1e-12 * max(1.0, abs(top))
    return best / np.count_nonzero(best)


def normalised_current(evidence: Evidence, floor: float = 1e-6) -> np.ndarray:
    """The weights in force as a distribution; a floor keeps every arm reachable by a policy."""
    current = evidence.current
    total = current.sum()
    policy = current / total if total > 0 else np.full(evidence.n_arms, 1.0 / evidence.n_arms)
    policy = np.maximum(policy, floor)
    return policy / policy.sum()


def validate_target(target: np.ndarray, n_arms: int, *, atol: float = 1e-6) -> np.ndarray:
    """Check a strategy's answer (custom ones especially) before the host acts on it."""
    target = np.asarray(target, dtype=np.float64)
    if target.shape != (n_arms,):
        raise ValueError(f"target must have shape ({n_arms},), got {target.shape}")
    if not _all_within(target, 0.0, 1.0):
        raise ValueError("target weights must be finite and in [0, 1]")
    if abs(target.sum() - 1.0) > atol:
        raise ValueError(f"target weights must sum to 1, got {target.sum()}")
    return target


def _range(spec: ParamSpec) -> str:
    def show(x: float) -> str:
        return "inf" if math.isinf(x) else f"{x:g}"

    opening = "(" if spec.low_open else "["
    closing = ")" if math.isinf(spec.high) else "]"
    return f"{opening}{show(spec.low)}, {show(spec.high)}{closing}"


def _all_within(values: np.ndarray, low: float, high: float) -> bool:
    if values.size == 0:
        return True
    # min/max propagate nan, so one comparison each also rejects nan
    return bool(values.min() >= low and values.max() <= high)
