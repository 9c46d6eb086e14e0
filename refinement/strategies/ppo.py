"""PPO-clip (Schulman et al. 2017) on a softmax policy over components.

One call is one PPO update: start from the weights in force, take several epochs of full-batch
gradient ascent on the clipped surrogate plus an entropy bonus, and return the new policy. The
clip is the trust region: once an arm's probability ratio leaves [1 - clip, 1 + clip] in the
direction its advantage pushes, its experiences stop pulling, so repeated adapts move weights
steadily instead of jumping on one batch of data.

The ascent is plain (no Adam): an arm's gradient scales with its share of the experiences, so
an arm seen rarely moves little. With hundreds of arms one update moves each probability only
a little; raise `ppo_lr` there if adapts should converge in fewer calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Evidence, normalised_current, param

if TYPE_CHECKING:
    from collections.abc import Mapping


def log_softmax(theta: np.ndarray) -> np.ndarray:
    """log of the softmax policy, computed without ever taking log(0)."""
    shifted = theta - theta.max()
    return shifted - np.log(np.exp(shifted).sum())


def advantages(reward: np.ndarray, *, normalize: bool) -> np.ndarray:
    """Reward minus the mean-reward baseline, optionally scaled to unit standard deviation."""
    if reward.size == 0:
        return reward.copy()
    centred = reward - reward.mean()
    std = centred.std()
    if std < 1e-8:
        # No spread, no signal: dividing rounding noise by a tiny std would invent some.
        return np.zeros_like(centred)
    return centred / std if normalize else centred


def surrogate(
    theta: np.ndarray,
    arm: np.ndarray,
    adv: np.ndarray,
    behaviour: np.ndarray,
    *,
    clip: float,
    entropy: float,
) -> float:
    """mean_j min(r_j A_j, clip(r_j) A_j) + entropy * H(pi), with r_j = pi(a_j) / behaviour_j."""
    logp = log_softmax(theta)
    pi = np.exp(logp)
    ratio = pi[arm] / behaviour
    clipped = np.clip(ratio, 1.0 - clip, 1.0 + clip)
    term = np.minimum(ratio * adv, clipped * adv).mean() if arm.size else 0.0
    return float(term - entropy * (pi * logp).sum())


def surrogate_grad(
    theta: np.ndarray,
    arm: np.ndarray,
    adv: np.ndarray,
    behaviour: np.ndarray,
    *,
    clip: float,
    entropy: float,
) -> np.ndarray:
    """Analytic gradient of `surrogate` in the logits, vectorised over experiences.

    d pi(a) / d theta = pi(a) (e_a - pi), so each unclipped experience adds A r (e_a - pi);
    np.bincount sums the e_a parts per arm without a Python loop.
    """
    logp = log_softmax(theta)
    pi = np.exp(logp)
    grad = np.zeros_like(theta)
    if arm.size:
        ratio = pi[arm] / behaviour
        weight = adv * ratio
        # min() picks the clipped (constant) term exactly when the ratio is past the clip in
        # the direction the advantage pushes; there the gradient is zero.
        weight[((adv > 0) & (ratio > 1.0 + clip)) | ((adv < 0) & (ratio < 1.0 - clip))] = 0.0
        per_arm = np.bincount(arm, weights=weight, minlength=theta.size)
        grad = (per_arm - pi * weight.sum()) / arm.size
    entropy_value = -(pi * logp).sum()
    return grad - entropy * pi * (logp + entropy_value)


def _restricted(policy: np.ndarray, arms: np.ndarray) -> np.ndarray:
    """`policy` renormalised over `arms` (a bool mask), zero elsewhere."""
    restricted = np.where(arms, policy, 0.0)
    return restricted / restricted.sum()


def ppo(evidence: Evidence, params: Mapping[str, float]) -> np.ndarray:
    """One PPO-clip update of the routing policy from the recorded experiences.

    A runtime chooses among its candidates with the weights renormalised over them, so the
    probability it records (`action_prob`) is that of the candidates, not of every component
    the host knows. The update therefore works on the arms the learning data covers: the policy
    is the weights in force renormalised over those arms, the ratio of each experience is that
    policy's probability over the recorded one, and the new weights are the old ones times how
    much the update changed each covered arm's probability (the other arms keep theirs).

    Where an experience's behaviour probability is unknown, the weights in force stand in for
    the policy that chose it. Experiences recorded under a policy already outside the trust
    region (starting ratio outside [1 - clip, 1 + clip]) are left out: PPO learns from
    near-on-policy data, and with stale replay data the clip's asymmetry would keep pushing up
    arms whose probability has since fallen. With nothing left to learn from, the weights in
    force come back, normalised.

    The baseline is the mean reward of that near-on-policy batch (the value of the policy that
    collected it), not of the whole replay window, which under a policy that improved would
    make every recent choice look good.
    """
    clip = param(params, "ppo_clip")
    epochs = int(param(params, "ppo_epochs"))
    lr = param(params, "ppo_lr")
    entropy = param(params, "ppo_entropy")
    max_norm = param(params, "ppo_max_grad_norm")
    normalize = bool(param(params, "ppo_normalize"))
    floor = param(params, "ppo_untried_floor")

    old = normalised_current(evidence)
    if evidence.size == 0:
        return old
    arm, reward = evidence.arm, evidence.reward
    known = ~np.isnan(evidence.behaviour_prob)
    # First guess of the arms the data covers: all of them; then the arms of the experiences
    # near the current policy over that guess, and once more over those (a fixed point in
    # practice: the near experiences cover the arms their runtime chose among).
    covered = np.bincount(arm, minlength=evidence.n_arms) > 0
    near = np.zeros(arm.size, dtype=bool)
    for _ in range(3):
        policy = _restricted(old, covered)
        behaviour = np.where(known, evidence.behaviour_prob, policy[arm])
        start_ratio = policy[arm] / behaviour
        near = (start_ratio >= 1.0 - clip) & (start_ratio <= 1.0 + clip)
        if not near.any():
            return old
        again = np.bincount(arm[near], minlength=evidence.n_arms) > 0
        if np.array_equal(again, covered):
            break
        covered = again
    policy = _restricted(old, covered)
    behaviour = np.where(known, evidence.behaviour_prob, policy[arm])[near]
    chosen = arm[near]
    adv = advantages(reward[near], normalize=normalize)
    index = np.flatnonzero(covered)
    local = np.searchsorted(index, chosen)

    theta = np.log(policy[index])
    start = theta.copy()
    for _ in range(epochs):
        grad = surrogate_grad(theta, local, adv, behaviour, clip=clip, entropy=entropy)
        norm = np.sqrt(grad @ grad)
        if norm > max_norm:
            # Global gradient-norm clipping, as in common PPO implementations: whatever the
            # data, one step cannot fling the logits far past the clip before it can act.
            grad *= max_norm / norm
        theta += lr * grad
    new = old.copy()
    change = np.exp(log_softmax(theta) - log_softmax(start))
    new[index] = old[index] * change
    # An arm with no experience left in the replay window has been starved for a whole window:
    # it keeps at least `ppo_untried_floor` of the top weight, so that a runtime still tries
    # it now and then. PPO learns only from what was chosen: with nearly all traffic on one arm
    # its advantages are that arm's rewards against its own rate, so when it gets worse nothing
    # says another arm is now better (a baseline that remembers does not help: over the window
    # the favoured arm's advantages still sum to about zero, and the arms that might now be
    # better are not in the data at all). The floor is PPO's counterpart of the value-based
    # strategies' optimism about arms without data, bounded rather than "as the best" because
    # that reset made the policy jump. It leaves the update itself alone (PPO-clip on the arms
    # the window covers); an arm it revives re-enters the data and from then on the clipped
    # update decides. With the default window (every experience) a tried arm never leaves it,
    # so a stationary run never pays for the floor.
    absent = np.bincount(arm, minlength=evidence.n_arms) == 0
    new[absent] = np.maximum(new[absent], floor * new.max())
    return new / new.sum()
