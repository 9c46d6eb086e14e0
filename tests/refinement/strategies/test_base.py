from __future__ import annotations

import math

import numpy as np
import pytest

from refinement.strategies import PARAMS, Evidence, check_params, validate_target


def test_evidence_from_history_defaults_to_unknown_behaviour_and_never_weighted_arms() -> None:
    evidence = Evidence.from_history(3, [0, 2], [1.0, -1.0])

    assert evidence.arm.dtype == np.int64
    assert np.isnan(evidence.behaviour_prob).all()
    assert evidence.current.tolist() == [0.5, 0.5, 0.5]
    assert evidence.size == 2


@pytest.mark.parametrize(
    ("arm", "reward", "behaviour", "message"),
    [
        ([0, 3], [0.0, 0.0], [np.nan, np.nan], "arm indices"),
        ([0, -1], [0.0, 0.0], [np.nan, np.nan], "arm indices"),
        ([0, 1], [0.0, 1.5], [np.nan, np.nan], "reward"),
        ([0, 1], [0.0, np.nan], [np.nan, np.nan], "reward"),
        ([0, 1], [0.0, 0.0], [0.0, np.nan], "behaviour_prob"),
        ([0, 1], [0.0, 0.0], [1.2, np.nan], "behaviour_prob"),
        ([0, 1], [0.0], [np.nan, np.nan], "one length"),
    ],
)
def test_evidence_refuses_data_a_strategy_could_not_trust(
    arm: list[int], reward: list[float], behaviour: list[float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Evidence(3, np.array(arm), np.array(reward), np.array(behaviour), np.full(3, 0.5))


@pytest.mark.parametrize("current", [[0.5, 0.5], [0.5, 0.5, 1.5], [0.5, np.nan, 0.5]])
def test_evidence_refuses_current_weights_of_wrong_shape_or_range(current: list[float]) -> None:
    with pytest.raises(ValueError, match="current"):
        Evidence.from_history(3, [], [], current=np.array(current))


def test_missing_params_take_the_documented_defaults() -> None:
    resolved = check_params({})

    # The loop benchmark's choices (bench/loop.py; docs/explanation/routing-weights.md).
    assert resolved["epsilon"] == 0.03
    assert resolved["temperature"] == 0.03
    assert resolved["ucb_c"] == 0.3
    assert resolved["ucb_horizon"] == 500
    assert resolved["ppo_clip"] == 0.8
    assert resolved["ppo_lr"] == 2.0
    assert resolved["ppo_epochs"] == 10
    assert resolved["ppo_entropy"] == 0.01
    assert resolved["seed"] == 0
    assert set(resolved) == set(PARAMS)


def test_given_params_override_defaults() -> None:
    assert check_params({"epsilon": 0.25, "ppo_epochs": 3.0})["epsilon"] == 0.25


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("epsilon", 1.5),
        ("epsilon", -0.1),
        ("temperature", 0.0),
        ("ucb_c", -1.0),
        ("ppo_clip", 1.5),
        ("ppo_epochs", 2.5),
        ("ppo_epochs", 0),
        ("ppo_lr", 0.0),
        ("ppo_entropy", -0.01),
        ("seed", -1),
        ("thompson_samples", 0),
        ("epsilon", math.nan),
        ("temperature", math.inf),
        ("epsilon", "0.5"),
        ("epsilon", True),
    ],
)
def test_out_of_range_param_raises_naming_it(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=name):
        check_params({name: value})  # type: ignore[dict-item]


def test_validate_target_accepts_a_distribution_and_refuses_anything_else() -> None:
    assert validate_target(np.array([0.25, 0.75]), 2).tolist() == [0.25, 0.75]
    with pytest.raises(ValueError, match="sum to 1"):
        validate_target(np.array([0.5, 0.6]), 2)
    with pytest.raises(ValueError, match="shape"):
        validate_target(np.array([1.0]), 2)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        validate_target(np.array([1.5, -0.5]), 2)
