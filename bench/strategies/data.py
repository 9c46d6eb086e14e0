"""The logged bandit both sides learn from, made here from one seed, and the strategies compared."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from refinement.strategies import Evidence, check_params

PAIRS = ("ucb1", "epsilon_greedy", "softmax")
STRATEGIES = ("ucb1", "epsilon_greedy", "softmax", "ppo")


# The app's defaults (refinement.strategies.base.PARAMS, learnportal/settings.py), used for the
# fit and the end-to-end run; the regret also runs softmax at a temperature that suits [0, 1].
DEFAULTS = check_params({})


SOFTMAX_LOW_TAU = 0.1


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
