"""Bradley-Terry strengths (feedback.comparisons.strengths), checked against `choix`.

The oracle and the module must optimise the same objective on the same data. choix's penalised
objective (choix.opt.PairwiseFcts.objective) is

    alpha * ||θ||² + sum over its (winner, loser) pairs of log(1 + exp(-(θ_winner - θ_loser)))

with a penalty alpha·||θ||², not alpha/2·||θ||². So on the same whole outcomes, choix's
`alpha` is prior / 2. choix takes whole outcomes, and a tie weighs half to each side: it is
given every outcome twice, a tie as one pair each way. Doubling the counts doubles the
log-likelihood, and doubling the prior too doubles the whole objective, which leaves its
optimum where it was. Twice the counts with twice the prior is then choix's
alpha = (2·prior) / 2 = prior. Both are tested: `alpha=prior` on doubled outcomes with ties,
and `alpha=prior / 2` on whole outcomes.

choix's optimum with alpha > 0 is compared as it is, without re-centring: it is unique and of
mean zero by itself, and so must the module's be. With prior == 0, choix's iterative methods
(ILSR, MM) return centred strengths, which the module's must equal.
"""

from __future__ import annotations

from statistics import NormalDist
from typing import TYPE_CHECKING

import choix
import numpy as np
import pytest

from feedback.comparisons.strengths import PRIOR, bradley_terry

if TYPE_CHECKING:
    from numpy.typing import NDArray

Z = NormalDist().inv_cdf(0.975)


def random_outcomes(
    seed: int, items: int = 6, outcomes: int = 300, tie_rate: float = 0.15
) -> NDArray[np.float64]:
    """Outcomes drawn from a Bradley-Terry model with random strengths, a tie weighing half."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=items)
    first = rng.integers(items, size=outcomes)
    second = (first + rng.integers(1, items, size=outcomes)) % items
    tie = rng.random(outcomes) < tie_rate
    first_won = ~tie & (rng.random(outcomes) < 1 / (1 + np.exp(truth[second] - truth[first])))
    second_won = ~tie & ~first_won
    wins = np.zeros((items, items))
    np.add.at(wins, (first[first_won], second[first_won]), 1.0)
    np.add.at(wins, (second[second_won], first[second_won]), 1.0)
    np.add.at(wins, (first[tie], second[tie]), 0.5)
    np.add.at(wins, (second[tie], first[tie]), 0.5)
    return wins


def pairs(counts: NDArray[np.float64]) -> list[tuple[int, int]]:
    """choix's data: (winner, loser) once for each whole outcome in `counts`."""
    whole = np.rint(counts).astype(np.int64)
    assert np.array_equal(whole, counts), "choix takes whole outcomes only"
    winner, loser = np.nonzero(whole)
    times = whole[winner, loser]
    return list(
        zip(np.repeat(winner, times).tolist(), np.repeat(loser, times).tolist(), strict=True)
    )


def choix_map(wins: NDArray[np.float64], prior: float) -> NDArray[np.float64]:
    """choix's penalised optimum on the doubled outcomes, so alpha = prior (see the top)."""
    return np.asarray(
        choix.opt_pairwise(wins.shape[0], pairs(2 * wins), alpha=prior, tol=1e-12),
        dtype=np.float64,
    )


def penalised_nll(theta: NDArray[np.float64], wins: NDArray[np.float64], prior: float) -> float:
    """Minus the penalised log-likelihood, written from its definition."""
    diff = theta[:, None] - theta[None, :]
    return float(np.sum(wins * np.logaddexp(0.0, -diff)) + prior / 2 * theta @ theta)


def gradient(
    theta: NDArray[np.float64], wins: NDArray[np.float64], prior: float
) -> NDArray[np.float64]:
    """The gradient of `penalised_nll`: each item's expected wins, minus its wins."""
    win = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    expected = ((wins + wins.T) * win).sum(axis=1)
    return np.asarray(expected - wins.sum(axis=1) + prior * theta, dtype=np.float64)


def numerical_hessian(
    theta: NDArray[np.float64], wins: NDArray[np.float64], prior: float, h: float = 1e-4
) -> NDArray[np.float64]:
    """Central second differences of `penalised_nll`."""
    n = theta.size
    step = h * np.eye(n)
    hessian = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            hessian[i, j] = (
                penalised_nll(theta + step[i] + step[j], wins, prior)
                - penalised_nll(theta + step[i] - step[j], wins, prior)
                - penalised_nll(theta - step[i] + step[j], wins, prior)
                + penalised_nll(theta - step[i] - step[j], wins, prior)
            ) / (4 * h * h)
    return hessian


def mean_zero_sd(hessian: NDArray[np.float64]) -> NDArray[np.float64]:
    """Standard deviations in the mean-zero parametrisation θ = Q φ, Q an orthonormal basis of
    the vectors summing to 0: the covariance is Q (Qᵀ H Q)⁻¹ Qᵀ."""
    n = hessian.shape[0]
    basis = np.linalg.svd(np.ones((1, n)))[2][1:].T
    covariance = basis @ np.linalg.inv(basis.T @ hessian @ basis) @ basis.T
    return np.asarray(np.sqrt(np.diag(covariance)), dtype=np.float64)


def half_width(wins: NDArray[np.float64], prior: float = PRIOR) -> NDArray[np.float64]:
    result = bradley_terry(wins, prior=prior)
    return (result.high - result.low) / 2


# --- against choix ---------------------------------------------------------------------------


def test_strengths_match_choix_on_random_connected_outcomes_with_ties() -> None:
    wins = random_outcomes(seed=7)
    assert (wins % 1 == 0.5).any(), "the data must hold ties"
    result = bradley_terry(wins)
    np.testing.assert_allclose(result.strength, choix_map(wins, PRIOR), atol=1e-6)
    assert abs(result.strength.sum()) < 1e-12


def test_strengths_match_choix_without_a_prior_on_strongly_connected_outcomes() -> None:
    wins = random_outcomes(seed=11)
    expected = choix.ilsr_pairwise(6, pairs(2 * wins), alpha=0.0, tol=1e-12, max_iter=1000)
    np.testing.assert_allclose(bradley_terry(wins, prior=0.0).strength, expected, atol=1e-6)


def test_strengths_match_choix_when_an_item_never_lost() -> None:
    # Item 0 beat everyone and lost to no one: only the prior keeps it finite. Whole outcomes,
    # undoubled, so choix's alpha is prior / 2.
    wins = np.array(
        [
            [0.0, 4.0, 3.0, 5.0],
            [0.0, 0.0, 6.0, 2.0],
            [0.0, 3.0, 0.0, 4.0],
            [0.0, 5.0, 1.0, 0.0],
        ]
    )
    result = bradley_terry(wins)
    expected = choix.opt_pairwise(4, pairs(wins), alpha=PRIOR / 2, tol=1e-12)
    np.testing.assert_allclose(result.strength, expected, atol=1e-6)
    assert np.isfinite(result.strength).all()
    assert np.argmax(result.strength) == 0


def test_two_items_match_the_closed_form_and_choix() -> None:
    # A beat B twice and they tied once: 2.5 to 0.5, so θ_A - θ_B = log 5 without a prior. The
    # information on the difference is 3·p(1 - p) with p = 5/6, i.e. 5/12, so Var(θ_A - θ_B) =
    # 12/5, and each mean-zero strength (± the difference / 2) has a variance of 3/5.
    wins = np.array([[0.0, 2.5], [0.5, 0.0]])
    result = bradley_terry(wins, prior=0.0)
    np.testing.assert_allclose(result.strength, [np.log(5) / 2, -np.log(5) / 2], atol=1e-12)
    np.testing.assert_allclose(result.high - result.strength, Z * np.sqrt(0.6), atol=1e-12)
    expected = choix.mm_pairwise(2, pairs(2 * wins), alpha=0.0, tol=1e-12)
    np.testing.assert_allclose(result.strength, expected, atol=1e-6)


def test_a_chain_of_one_sided_wins_with_a_faint_prior_matches_choix() -> None:
    # Item 6 beat 0 and 4, 4 beat 2, 2 beat 3, 3 beat 1, 1 beat 5, 5 beat 0, and never the
    # other way: only the faint prior holds the strengths, which run out to ±15. Newton's full
    # steps from 0 overshoot here, each further than the last, out to strengths in the
    # thousands where p(1 - p) is 0 and no step comes back: the step length is what keeps it. choix's Newton-CG stops 2e-6 short on data so
    # ill-conditioned, its BFGS within 2e-7.
    wins = np.zeros((7, 7))
    winner, loser = [6, 6, 4, 2, 3, 1, 5], [0, 4, 2, 3, 1, 5, 0]
    wins[winner, loser] = 15.0, 1.0, 8.0, 0.5, 21.0, 3.0, 7.0
    prior = 1e-3
    theta = bradley_terry(wins, prior=prior).strength
    expected = choix.opt_pairwise(7, pairs(2 * wins), alpha=prior, method="BFGS", tol=1e-12)
    np.testing.assert_allclose(theta, expected, atol=1e-6)
    assert np.abs(gradient(theta, wins, prior)).max() < 1e-12


# --- intervals -------------------------------------------------------------------------------


def test_intervals_contain_the_strengths_symmetrically() -> None:
    result = bradley_terry(random_outcomes(seed=7))
    assert (result.low < result.strength).all()
    assert (result.strength < result.high).all()
    np.testing.assert_allclose(result.high - result.strength, result.strength - result.low)


@pytest.mark.parametrize("prior", [PRIOR, 0.0])
def test_intervals_match_a_numerical_hessian_of_the_log_likelihood(prior: float) -> None:
    wins = random_outcomes(seed=7)
    result = bradley_terry(wins, prior=prior)
    sd = mean_zero_sd(numerical_hessian(result.strength, wins, prior))
    np.testing.assert_allclose(result.low, result.strength - Z * sd, atol=1e-4)
    np.testing.assert_allclose(result.high, result.strength + Z * sd, atol=1e-4)


def test_intervals_halve_when_the_same_outcomes_are_seen_four_times() -> None:
    # Without a prior the strengths stay put and the information is four times as much, so
    # the intervals halve exactly; with one, the prior weighs less against the data, nearly so.
    wins = random_outcomes(seed=7)
    np.testing.assert_allclose(
        bradley_terry(4 * wins, prior=0.0).strength,
        bradley_terry(wins, prior=0.0).strength,
        atol=1e-9,
    )
    np.testing.assert_allclose(half_width(4 * wins, 0.0) / half_width(wins, 0.0), 0.5)
    ratio = half_width(4 * wins) / half_width(wins)
    assert (np.abs(ratio - 0.5) < 0.05).all(), ratio


# --- edge cases ------------------------------------------------------------------------------


@pytest.mark.parametrize("prior", [PRIOR, 0.0])
def test_zero_items_give_empty_arrays(prior: float) -> None:
    result = bradley_terry(np.zeros((0, 0)), prior=prior)
    assert result.strength.shape == result.low.shape == result.high.shape == (0,)


@pytest.mark.parametrize("prior", [PRIOR, 0.0])
def test_one_item_has_strength_zero_and_the_interval_zero_to_zero(prior: float) -> None:
    result = bradley_terry(np.zeros((1, 1)), prior=prior)
    assert (result.strength.tolist(), result.low.tolist(), result.high.tolist()) == (
        [0.0],
        [0.0],
        [0.0],
    )


def test_no_outcomes_give_zero_strengths_and_the_priors_intervals() -> None:
    # The prior alone: variance 1/prior per strength, less its common level's 1/(n·prior).
    result = bradley_terry(np.zeros((4, 4)), prior=0.5)
    assert result.strength.tolist() == [0.0] * 4
    np.testing.assert_allclose(result.high, Z * np.sqrt((1 - 1 / 4) / 0.5))
    np.testing.assert_allclose(result.low, -result.high)


def test_disconnected_groups_are_each_fitted_as_if_alone() -> None:
    # The prior pulls each group to mean zero by itself: no comparison says how they stand.
    first, second = random_outcomes(seed=1, items=3), random_outcomes(seed=2, items=4)
    wins = np.zeros((7, 7))
    wins[:3, :3], wins[3:, 3:] = first, second
    result = bradley_terry(wins)
    np.testing.assert_allclose(result.strength[:3], bradley_terry(first).strength, atol=1e-9)
    np.testing.assert_allclose(result.strength[3:], bradley_terry(second).strength, atol=1e-9)
    assert (result.low < result.strength).all() and (result.strength < result.high).all()


def test_nearly_singular_outcomes_stop_at_the_optimum_instead_of_running_out_of_steps() -> None:
    # A faint prior, an item that only lost, two items never compared: the Hessian's smallest
    # eigenvalue is tiny, and the rounding of the gradient alone makes Newton's step larger
    # than tol. The method must see that and stop at a point where the gradient is 0.
    wins = np.zeros((6, 6))
    wins[2, [1, 4, 5]] = 0.5, 64.0, 6.5
    wins[3, 2] = 3.0
    wins[5, [2, 3]] = 31.5, 0.5
    prior = 1e-8
    theta = bradley_terry(wins, prior=prior).strength
    assert np.abs(gradient(theta, wins, prior)).max() < 1e-10


@pytest.mark.parametrize(
    ("wins", "message"),
    [
        (np.zeros((2, 3)), "square"),
        (np.zeros(3), "square"),
        (np.zeros((2, 2, 2)), "square"),
        (np.array([[0.0, -1.0], [2.0, 0.0]]), "negative"),
        (np.array([[0.0, np.nan], [2.0, 0.0]]), "finite"),
        (np.array([[0.0, np.inf], [2.0, 0.0]]), "finite"),
        (np.array([[1.0, 2.0], [2.0, 0.0]]), "diagonal"),
    ],
    ids=["not square", "one axis", "three axes", "negative", "nan", "infinite", "diagonal"],
)
def test_a_malformed_wins_matrix_is_refused(wins: NDArray[np.float64], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bradley_terry(wins)


@pytest.mark.parametrize(
    "wins",
    [
        np.array([[0.0, 3.0], [0.0, 0.0]]),  # an item that never lost
        np.zeros((3, 3)),  # no outcomes
        np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),  # one never compared
    ],
    ids=["never lost", "no outcomes", "disconnected"],
)
def test_without_a_prior_strengths_that_do_not_exist_are_refused(
    wins: NDArray[np.float64],
) -> None:
    with pytest.raises(ValueError, match="maximum-likelihood strengths do not exist"):
        bradley_terry(wins, prior=0.0)
    assert np.isfinite(bradley_terry(wins).strength).all()


@pytest.mark.parametrize(
    ("prior", "tol", "max_iter", "message"),
    [
        (-0.1, 1e-10, 100, "prior"),
        (float("nan"), 1e-10, 100, "prior"),
        (float("inf"), 1e-10, 100, "prior"),
        (PRIOR, 0.0, 100, "tol"),
        (PRIOR, 1e-10, 0, "max_iter"),
    ],
    ids=["negative prior", "nan prior", "infinite prior", "zero tol", "no iterations"],
)
def test_settings_out_of_range_are_refused(
    prior: float, tol: float, max_iter: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        bradley_terry(random_outcomes(seed=7), prior=prior, tol=tol, max_iter=max_iter)


def test_newton_that_runs_out_of_steps_says_so() -> None:
    with pytest.raises(RuntimeError, match="did not converge in 1 steps"):
        bradley_terry(random_outcomes(seed=7), max_iter=1)
