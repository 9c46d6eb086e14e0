from __future__ import annotations

import pytest

from refinement.strategies import BUILTIN_STRATEGIES, load_custom
from refinement.strategies.ppo import ppo
from refinement.strategies.thompson import thompson
from refinement.strategies.ucb1 import ucb1


def test_builtin_strategies_are_the_four_the_spec_names() -> None:
    assert set(BUILTIN_STRATEGIES) == {"ppo", "ucb1", "epsilon_greedy", "softmax"}
    assert BUILTIN_STRATEGIES["ppo"] is ppo
    assert BUILTIN_STRATEGIES["ucb1"] is ucb1


def test_load_custom_returns_the_thompson_example() -> None:
    assert load_custom("refinement.strategies.thompson.thompson") is thompson


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "non-empty"),
        ("thompson", "package.module.function"),
        ("refinement.strategies.nowhere.thompson", "cannot import module"),
        ("refinement.strategies.thompson.nothing", "has no attribute 'nothing'"),
        ("refinement.strategies.base.PARAMS", "not callable"),
    ],
)
def test_load_custom_rejects_a_bad_path_with_a_clear_message(path: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_custom(path)
