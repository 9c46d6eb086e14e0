from __future__ import annotations

import numpy as np
import pytest

from refinement.strategies import Evidence
from refinement.strategies.ppo import advantages, log_softmax, ppo, surrogate, surrogate_grad
from refinement.strategies.simulate import run_bandit, uniform_regret

MEANS = np.array([0.9, 0.6, 0.4, 0.2])
OLD = np.array([0.1, 0.4, 0.3, 0.2])  # the best arm starts unlikely


def _on_policy(policy: np.ndarray, n: int, seed: int) -> Evidence:
    """Experiences drawn from `policy`, which is also the weights in force."""
    rng = np.random.default_rng(seed)
    arm = rng.choice(policy.size, size=n, p=policy)
    reward = np.where(rng.random(n) < MEANS[arm], 1.0, -1.0)
    return Evidence.from_history(
        policy.size, arm, reward, behaviour_prob=policy[arm], current=policy
    )


def _entropy(p: np.ndarray) -> float:
    return float(-(p * np.log(p)).sum())


def test_ppo_moves_probability_mass_to_the_best_arm() -> None:
    new = ppo(_on_policy(OLD, 4000, seed=1), {})

    assert new[0] > OLD[0]
    assert new[3] < OLD[3]
    assert new.sum() == pytest.approx(1.0)


def test_repeated_ppo_updates_converge_on_the_best_arm() -> None:
    policy = np.full(4, 0.25)
    for update in range(30):
        policy = ppo(_on_policy(policy, 1000, seed=update), {})

    assert policy[0] > 0.95


@pytest.mark.parametrize("clip", [0.1, 0.2, 0.3])
def test_ppo_clip_bounds_how_far_one_update_moves_each_probability(clip: float) -> None:
    # Many small steps: without the clip the ratios would keep growing (next test); with it,
    # every experience stops pulling once its ratio leaves [1 - clip, 1 + clip].
    params = {"ppo_clip": clip, "ppo_lr": 0.05, "ppo_epochs": 400, "ppo_entropy": 0.0}

    ratio = ppo(_on_policy(OLD, 4000, seed=1), params) / OLD

    assert ratio.max() == pytest.approx(1.0 + clip, abs=0.01)
    assert ratio.min() == pytest.approx(1.0 - clip, abs=0.01)


def test_the_same_update_without_a_tight_clip_moves_much_further() -> None:
    params = {"ppo_clip": 1.0, "ppo_lr": 0.05, "ppo_epochs": 400, "ppo_entropy": 0.0}

    ratio = ppo(_on_policy(OLD, 4000, seed=1), params) / OLD

    assert ratio.max() > 1.5
    assert ratio.min() < 0.5


def test_ppo_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(5)
    n, k = 200, 4
    arm = rng.integers(0, k, size=n)
    adv = rng.normal(size=n)
    behaviour = rng.uniform(0.15, 0.35, size=n)
    theta = rng.normal(scale=0.3, size=k)
    kwargs = {"clip": 0.2, "entropy": 0.05}
    step = 1e-6
    numeric = np.array(
        [
            (
                surrogate(theta + step * e, arm, adv, behaviour, **kwargs)
                - surrogate(theta - step * e, arm, adv, behaviour, **kwargs)
            )
            / (2 * step)
            for e in np.eye(k)
        ]
    )

    np.testing.assert_allclose(
        surrogate_grad(theta, arm, adv, behaviour, **kwargs), numeric, atol=1e-6
    )


def test_experiences_past_the_clip_in_their_advantage_direction_add_no_gradient() -> None:
    theta = np.log(np.array([0.5, 0.5]))
    arm, adv, behaviour = np.array([0, 1]), np.array([1.0, -1.0]), np.array([0.5, 0.5])
    # pi(0) / 0.25 = 2 > 1.2 with a positive advantage: that experience is clipped out.
    with_clipped = (
        np.r_[arm, 0],
        np.r_[adv, 1.0],
        np.r_[behaviour, 0.25],
    )

    grad = surrogate_grad(theta, arm, adv, behaviour, clip=0.2, entropy=0.0) * 2
    grad_with = surrogate_grad(theta, *with_clipped, clip=0.2, entropy=0.0) * 3

    np.testing.assert_allclose(grad_with, grad)


def test_unknown_behaviour_prob_means_the_weights_in_force_chose() -> None:
    evidence = _on_policy(OLD, 2000, seed=2)
    unknown = Evidence.from_history(4, evidence.arm, evidence.reward, current=evidence.current)

    np.testing.assert_allclose(ppo(unknown, {}), ppo(evidence, {}))


def test_experiences_recorded_far_from_the_current_policy_pull_nothing_to_their_arm() -> None:
    fresh = _on_policy(OLD, 2000, seed=3)
    # Stale wins for arm 3 recorded when it had probability 0.9: far outside the trust region.
    stale_arm = np.full(500, 3)
    mixed = Evidence.from_history(
        4,
        np.r_[stale_arm, fresh.arm],
        np.r_[np.ones(500), fresh.reward],
        behaviour_prob=np.r_[np.full(500, 0.9), fresh.behaviour_prob],
        current=OLD,
    )

    # They pull no probability to their arm (a clip of 0.2: 0.9 is far outside its region).
    params = {"ppo_clip": 0.2}
    assert ppo(mixed, params)[3] <= ppo(fresh, params)[3] + 1e-12


def test_ppo_entropy_bonus_keeps_probabilities_away_from_zero_and_one() -> None:
    finals = {}
    # Each update sees only its own batch, so an arm starved out of one would be held at the
    # untried floor (tested below); without the floor the bonus is what keeps it alive.
    for bonus in (0.0, 0.3):
        policy = np.full(4, 0.25)
        for update in range(40):
            params = {"ppo_entropy": bonus, "ppo_untried_floor": 0.0}
            policy = ppo(_on_policy(policy, 2000, seed=update), params)
        finals[bonus] = policy

    assert finals[0.0].min() < 1e-3 and finals[0.0].max() > 0.99
    assert finals[0.3].min() > 2 * finals[0.0].min()
    assert finals[0.3].max() < 0.99
    assert _entropy(finals[0.3]) > 5 * _entropy(finals[0.0])
    assert finals[0.3].argmax() == 0


def test_entropy_bonus_alone_pulls_a_skewed_policy_toward_uniform_when_rewards_are_flat() -> None:
    skewed = np.array([0.7, 0.2, 0.1])
    evidence = Evidence.from_history(3, [0, 0, 1, 2], [0.5] * 4, current=skewed)

    assert _entropy(ppo(evidence, {"ppo_entropy": 0.1})) > _entropy(skewed)
    np.testing.assert_allclose(ppo(evidence, {"ppo_entropy": 0.0}), skewed)


def test_ppo_without_experiences_returns_the_weights_in_force_normalised() -> None:
    evidence = Evidence.from_history(3, [], [], current=np.array([0.5, 0.25, 0.25]))

    np.testing.assert_allclose(ppo(evidence, {}), [0.5, 0.25, 0.25])


def test_an_arm_weighted_zero_stays_reachable() -> None:
    evidence = Evidence.from_history(3, [0, 1], [1.0, -1.0], current=np.array([0.5, 0.5, 0.0]))

    assert ppo(evidence, {})[2] > 0


def test_advantages_are_centred_and_normalised_only_when_asked() -> None:
    reward = np.array([1.0, -1.0, 0.5, 0.5])  # mean 0.25

    np.testing.assert_allclose(advantages(reward, normalize=False), reward - 0.25)
    np.testing.assert_allclose(advantages(reward, normalize=True).mean(), 0.0, atol=1e-12)
    np.testing.assert_allclose(advantages(reward, normalize=True).std(), 1.0)
    np.testing.assert_array_equal(advantages(np.full(3, 0.3), normalize=True), np.zeros(3))


def test_log_softmax_is_finite_for_extreme_logits() -> None:
    logp = log_softmax(np.array([1000.0, 0.0, -1000.0]))

    assert np.isfinite(logp).all()
    assert np.exp(logp).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_ppo_regret_is_far_below_uniform(seed: int) -> None:
    means = np.array([0.9, 0.8, 0.5, 0.3, 0.1])
    rounds = 10_000

    result = run_bandit(ppo, means, rounds, seed=seed, refit_every=20)

    assert result.regret < uniform_regret(means, rounds) / 5


def test_an_arm_starved_out_of_the_replay_window_keeps_a_share_of_the_top_weight() -> None:
    current = np.array([1.0, 1e-4, 0.3])
    evidence = Evidence.from_history(
        3, [0, 2] * 50, [1.0, -1.0] * 50, behaviour_prob=[0.77, 0.23] * 50, current=current
    )

    new = ppo(evidence, {})
    assert new[1] == pytest.approx(0.2 * new.max())
    assert ppo(evidence, {"ppo_untried_floor": 0.0})[1] < 1e-3
