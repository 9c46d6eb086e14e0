"""The client's `StrategyName` is the protocol's, and names exactly the strategies a host runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from learnportal_client import STRATEGY_NAMES, StrategyName
from refinement.strategies import BUILTIN_STRATEGIES

if TYPE_CHECKING:
    from learnportal_client import LearnClient


def test_the_strategy_names_are_the_hosts_built_in_strategies_and_its_custom_one() -> None:
    assert get_args(StrategyName) == STRATEGY_NAMES
    assert set(STRATEGY_NAMES) == {*BUILTIN_STRATEGIES, "custom"}


def test_every_built_in_strategy_named_adapts_on_a_host_with_the_default_settings(
    client: LearnClient,
) -> None:
    client.experience([{"action": {"component_name": "search", "success": True}, "reward": 1.0}])
    built_in = [name for name in STRATEGY_NAMES if name != "custom"]
    assert [client.adapt(strategy=name).type for name in built_in] == ["learn/adapt/resp"] * 4
