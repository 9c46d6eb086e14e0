"""The trust region's arithmetic: how far a weight may move by itself at each risk (no database)."""

from __future__ import annotations

import pytest

from refinement.review import weight_step_risk
from refinement.trust_region import max_step, step_toward
from refinement.vocabulary import RiskLevel


@pytest.mark.parametrize(
    ("risk", "step"), [("none", 0.0), ("low", 0.1), ("medium", 0.3), ("high", 1.0)]
)
def test_each_auto_apply_risk_allows_a_step_as_large_as_its_weight_rule(
    risk: str, step: float
) -> None:
    assert max_step(risk) == step


@pytest.mark.parametrize("risk", [RiskLevel.LOW, RiskLevel.MEDIUM])
def test_the_largest_step_a_risk_allows_is_reviewed_at_that_risk_and_a_longer_one_above(
    risk: RiskLevel,
) -> None:
    assert weight_step_risk(0.5, 0.5 - max_step(risk))[0] == risk
    assert weight_step_risk(0.5, 0.5 - max_step(risk) - 0.001)[0] > risk


@pytest.mark.parametrize(("risk", "step"), [("none", 0.0), ("low", 0.0), ("medium", 0.3)])
def test_a_weight_rolled_back_lately_takes_no_step_under_a_low_limit(
    risk: str, step: float
) -> None:
    assert max_step(risk, rolled_back_lately=True) == step


def test_a_step_goes_toward_the_target_no_further_than_the_limit_and_never_past_it() -> None:
    assert step_toward(0.5, 0.9, 0.1) == 0.6
    assert step_toward(0.5, 0.1, 0.1) == 0.4
    assert step_toward(0.5, 0.55, 0.1) == 0.55
    assert step_toward(0.5, 0.9, 0.0) == 0.5


def test_a_step_is_rounded_as_weights_are_stored() -> None:
    assert step_toward(0.1, 0.9, 0.2) == 0.3  # not 0.30000000000000004
    assert step_toward(0.5, 0.123456789, 1.0) == 0.123457


def test_a_small_weight_keeps_six_significant_digits_and_its_order() -> None:
    assert step_toward(0.05, 3.51234567e-11, 0.1) == 3.51235e-11
    assert step_toward(0.05, 3.51234567e-11, 0.1) > step_toward(0.05, 3.51e-11, 0.1) > 0.0


@pytest.mark.parametrize(
    ("current", "target"), [(0.0123457, 1.0), (0.00987654, 1.0), (0.3, 0.8), (0.7, 0.2)]
)
def test_rounding_never_carries_a_step_past_the_limit(current: float, target: float) -> None:
    new = step_toward(current, target, 0.1)
    assert abs(new - current) <= 0.1 + 1e-12
    assert abs(new - current) == pytest.approx(0.1, abs=1e-6)
