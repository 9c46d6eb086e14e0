"""The refinement tests' fixture (their helpers: helpers.py; their requests: tests/builders.py)."""

from __future__ import annotations

import pytest

from tests.factories import StoreValueFactory


@pytest.fixture
def weighted(db: None) -> None:
    """alpha and beta already weighted 0.5 before any call is recorded.

    Works around the behaviour-probability bug for fresh components (see test_adapt.py), so that
    PPO, the planner's default strategy, has data to learn from.
    """

    for name in ("alpha", "beta"):
        StoreValueFactory.create(component=name, value=0.5)
