"""Bradley-Terry strengths for a leaderboard of side-by-side comparisons, in plain numpy.

A person shown two items (components, models) side by side says which is better, or that they
tie. Bradley-Terry gives each item a log-strength θ, and item i beats item j with probability
sigmoid(θ_i - θ_j). The strengths are those that maximise the penalised log-likelihood

    sum_ij wins[i, j] * log(sigmoid(θ_i - θ_j)) - prior / 2 * ||θ||²

where wins[i, j] is the weight of the outcomes where i beat j, a tie counting half to each side.
The penalty is a Gaussian prior on θ, of mean 0 and variance 1 / prior. Without it an item that
never lost would have an infinite strength, and groups of items never compared with each other
would have no strength relative to each other.

The Hessian of minus the objective is the Laplacian of the comparison graph, each pair
weighted by how many times it met times p(1 - p), plus prior times the identity. The items are
tens at most, so it is small, and each Newton step solves it exactly. Newton's full step can
overshoot on one-sided outcomes, each step further out than the last. But the logistic loss is
self-concordant in the generalised sense (Bach 2010, "Self-concordant analysis for logistic
regression"): its third derivative is at most its second. That bound gives each step a length
sure to lower the objective (Tran-Dinh, Sun and Lu 2019, "Generalized self-concordant
functions: a recipe for Newton-type methods"), with no line search: no objective to evaluate,
so no rounding of a sum of hundreds of terms to mistake for a rise. Near the optimum the length
tends to 1, and the convergence ends quadratic, as Newton's does.

The likelihood sees only differences of strengths, so the strengths are reported with mean
zero, and the intervals are for the reported numbers. The Hessian does not depend on who won,
only on who met whom, so the observed information equals the expected (Fisher) information. An
item's 95% interval is its strength ± 1.96 standard deviations of the Gaussian (Laplace)
approximation at the optimum, whose covariance is P H⁻¹ P, with H the penalised Hessian and
P = I - 11ᵀ/n the projection that removes the common level of all strengths. With prior == 0,
H is singular along the all-ones vector, and P H⁻¹ P is its pseudo-inverse. With prior > 0,
H⁻¹ also holds the prior's 1 / (n·prior) variance of the common level: no comparison can
shrink it, it says nothing about the order of the items, and it would widen every interval
without bound as prior tends to 0. The projection removes it, so the intervals are continuous
in prior down to 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# A Gaussian prior of standard deviation 2 on each log-strength. Two standard deviations are a
# log-strength of ±4, a 98% chance of beating an average item, so the prior leaves room for any
# leaderboard we could plausibly see. Its weight is 1/4, the Fisher information of a single
# comparison between two items of equal strength (p(1 - p) = 1/4). So the prior counts for
# about one comparison: a few dozen comparisons of an item outweigh it, and it is still enough
# to keep an item that never lost finite: after 10 straight wins over an item of strength 0, it
# gives a 93% chance of winning the next, near Laplace's rule of succession (11/12).
PRIOR = 0.25

# A step whose spread is at most this is local: the Hessian anywhere along it is within a factor
# exp(±spread) of the Hessian where it starts, and the next Newton decrement is then, in exact
# arithmetic, below (2·spread)² times this one: a few millionths. A next one not even four
# times smaller is rounding, and Newton's method has nothing left to do.
_LOCAL = 1e-3

# The standard normal's 97.5% quantile: strength ± Z is a two-sided 95% interval.
_Z = 1.959963984540054


@dataclass(frozen=True)
class Strengths:
    """One entry per item, in the order of the wins matrix's rows.

    `strength` holds the log-scale Bradley-Terry strengths, with mean zero. `low` and `high`
    bound each one's 95% interval, from the Fisher information in the mean-zero
    parametrisation (see the module's docstring).
    """

    strength: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]


def bradley_terry(
    wins: ArrayLike, *, prior: float = PRIOR, tol: float = 1e-10, max_iter: int = 10_000
) -> Strengths:
    """Strengths and their 95% intervals from a square matrix of outcomes.

    wins[i, j] is the weight of the outcomes where item i beat item j. A tie counts 0.5 to
    each side, so weights may be halves. The diagonal is zero.

    `prior` is the weight of the Gaussian prior, and must be 0 or more. With prior > 0 the
    strengths always exist. With prior == 0 they are the maximum-likelihood ones, which exist
    only when every item beat, and was beaten by, some chain of the others (Ford 1957: the
    graph of "i beat j" is strongly connected). Otherwise ValueError. Newton's method stops
    when its step moves no strength by more than `tol`, or when rounding leaves it nothing to
    do, and raises RuntimeError if neither happens within `max_iter` steps.

    A lone item has strength 0 and the interval [0, 0]: mean zero fixes its strength, and
    with nothing to compare it with, there is nothing to be unsure about. With no outcomes at
    all, every strength is 0 and the intervals are the prior's: ± Z·sqrt((1 - 1/n) / prior).
    """
    matrix = _checked_wins(wins)
    _check_settings(prior, tol, max_iter)
    n = matrix.shape[0]
    if n == 0:
        empty = np.zeros(0)
        return Strengths(empty, empty.copy(), empty.copy())
    if prior == 0 and not _strongly_connected(matrix):
        raise ValueError(
            "with prior == 0 the maximum-likelihood strengths do not exist: some group of "
            "items never lost to the rest, or never beat them (an item that never lost, or "
            "groups never compared with each other); use a prior > 0"
        )
    theta = _newton(matrix, prior, tol, max_iter)
    theta -= theta.mean()
    _, hessian = _gradient_and_hessian(theta, matrix, prior)
    sd = np.sqrt(np.clip(np.diag(_mean_zero_covariance(hessian)), 0.0, None))
    return Strengths(theta, theta - _Z * sd, theta + _Z * sd)


def _checked_wins(wins: ArrayLike) -> NDArray[np.float64]:
    """The wins as a float matrix, or ValueError saying what is wrong with them."""
    matrix = np.asarray(wins, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(
            f"wins must be a square matrix, one row and column an item: got shape {matrix.shape}"
        )
    if not np.isfinite(matrix).all():
        raise ValueError("wins must be finite: no NaN or infinity")
    if (matrix < 0).any():
        raise ValueError("wins must not be negative: each is a weight of outcomes")
    if np.diag(matrix).any():
        raise ValueError("wins must have a zero diagonal: an item does not play itself")
    return matrix


def _check_settings(prior: float, tol: float, max_iter: int) -> None:
    if not (np.isfinite(prior) and prior >= 0):
        raise ValueError(f"prior must be 0 or a finite positive number: got {prior}")
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a finite positive number: got {tol}")
    if max_iter < 1:
        raise ValueError(f"max_iter must be at least 1: got {max_iter}")


def _strongly_connected(wins: NDArray[np.float64]) -> bool:
    """Whether each item reaches every other along a chain of "beat" (Ford's condition).

    Squaring the reachability matrix doubles the length of the chains it knows, so
    ceil(log2 n) squarings find them all.
    """
    reach = ((wins > 0) | np.eye(wins.shape[0], dtype=bool)).astype(np.int64)
    for _ in range(int(np.ceil(np.log2(max(wins.shape[0], 2))))):
        reach = (reach @ reach > 0).astype(np.int64)
    return bool(reach.all())


def _gradient_and_hessian(
    theta: NDArray[np.float64], wins: NDArray[np.float64], prior: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The gradient and Hessian of minus the penalised log-likelihood at `theta`.

    Item i's gradient is its losses weighted by its chance of winning them, minus its wins
    weighted by its chance of losing them: expected wins minus wins, without the cancellation
    of 1 - p when p is near 1.
    """
    diff = theta[:, None] - theta[None, :]
    # win[i, j] = sigmoid(θ_i - θ_j), the chance that i beats j; win.T is the chance it loses.
    win = np.exp(-np.logaddexp(0.0, -diff))
    lose = win.T
    gradient = (wins.T * win - wins * lose).sum(axis=1) + prior * theta
    weight = (wins + wins.T) * win * lose
    hessian = np.diag(weight.sum(axis=1)) - weight + prior * np.eye(theta.size)
    return gradient, hessian


def _newton(
    wins: NDArray[np.float64], prior: float, tol: float, max_iter: int
) -> NDArray[np.float64]:
    """The optimum by damped Newton steps, from θ = 0.

    The step s solves (H + 11ᵀ/n) s = -g. The gradient sums to prior·sum(θ), which is 0 from
    θ = 0 on, so s sums to 0, and on mean-zero vectors H + 11ᵀ/n is H: s is Newton's step,
    and the iterates stay mean zero. Adding 11ᵀ/n makes the system solvable when prior == 0,
    where H is singular along the all-ones vector.

    Each step goes the length `_step_length` says, which is sure to lower the objective. It
    stops when a step moves no strength by more than `tol`, or when rounding has taken over:
    the Newton decrement -g·s is not positive, or a local step (see `_LOCAL`) did not cut it
    fourfold. The second comes first when H is nearly singular (a tiny prior, an item far
    below the rest): the gradient's rounding, divided by H's smallest eigenvalue, is then a
    step larger than `tol` that no iteration can shrink, and the strengths are as exact as
    floating point can make them.
    """
    n = wins.shape[0]
    level = np.full((n, n), 1.0 / n)
    theta = np.zeros(n)
    previous = 0.0  # the decrement before the last step if that step was local, else 0
    for _ in range(max_iter):
        gradient, hessian = _gradient_and_hessian(theta, wins, prior)
        step = np.linalg.solve(hessian + level, -gradient)
        decrement = float(-(gradient @ step))
        if decrement <= 0.0 or 4 * decrement >= previous > 0.0:
            return theta
        length, spread = _step_length(step, decrement, hessian)
        theta = theta + length * step
        if np.max(np.abs(step)) <= tol:
            return theta
        previous = decrement if spread <= _LOCAL else 0.0
    raise RuntimeError(f"Newton's method did not converge in {max_iter} steps (tol={tol})")


def _step_length(
    step: NDArray[np.float64], decrement: float, hessian: NDArray[np.float64]
) -> tuple[float, float]:
    """How far along Newton's step s to go, and the step's spread R = max(s) - min(s).

    R is the most the step changes any difference θ_i - θ_j. The logistic loss's third
    derivative is at most its second, so along s the objective's third derivative is at most
    R times its second. The objective at θ + t·s is then below
    f - t·λ + (s·H·s)·(exp(R·t) - R·t - 1) / R², with λ = -g·s the Newton decrement, and that
    bound is least, and below f, at t = log(1 + R·λ / (s·H·s)) / R. A step of that length
    lowers the objective by an amount bounded away from 0 away from the optimum, and the
    length tends to 1 near it, where the convergence is quadratic.
    """
    spread = float(step.max() - step.min())
    curvature = float(step @ hessian @ step)
    if spread == 0.0 or curvature <= 0.0:
        # No step, or one lost in rounding: nothing for the bound to guard.
        return 1.0, spread
    # At most Newton's full step, which rounding alone could carry past 1.
    return min(1.0, float(np.log1p(spread * decrement / curvature) / spread)), spread


def _mean_zero_covariance(hessian: NDArray[np.float64]) -> NDArray[np.float64]:
    """P H⁻¹ P: the covariance of the strengths once their common level is removed.

    The all-ones vector is an eigenvector of H (its Laplacian part sends it to 0), so adding
    11ᵀ/n changes only its eigenvalue, from prior to prior + 1. The sum is invertible whenever
    the mean-zero strengths are determined, and P (H + 11ᵀ/n)⁻¹ P is P H⁻¹ P (with prior > 0)
    or H's pseudo-inverse (with prior == 0).
    """
    n = hessian.shape[0]
    level = np.full((n, n), 1.0 / n)
    projection = np.eye(n) - level
    covariance: NDArray[np.float64] = projection @ np.linalg.inv(hessian + level) @ projection
    return covariance
