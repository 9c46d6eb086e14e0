"""Adapt follows a swap of the best arm within its window (LEARNPORTAL_ADAPT_WINDOW), through
its applies, as the loop benchmark's swapped run asks of the live portal. Fifty adapts in a few
seconds: the per-minute brake on machines' changes of a path is lifted, as the bench lifts it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.builders import adapt_req
from tests.harness import Actor, http_send, ok
from tests.refinement.helpers import calls, weight

if TYPE_CHECKING:
    from pytest_django import Settings

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("strategy", ["ucb1", "epsilon_greedy", "softmax"])
def test_the_weights_follow_the_better_arm_once_the_window_has_passed_the_swap(
    agent: Actor, settings: Settings, strategy: str
) -> None:
    settings.LEARNPORTAL_ADAPT_WINDOW = 100
    settings.LEARNPORTAL_PATH_CHANGES_MAX = 1000
    for _ in range(40):
        calls(agent, "alpha", 5, reward=1.0, success=True)
        calls(agent, "beta", 5, reward=-1.0, success=False)
        ok(http_send(agent, adapt_req(strategy)))
    assert (weight("alpha") or 0) > (weight("beta") or 0)
    for _ in range(15):  # a window and a half the other way round: less than all before it
        calls(agent, "alpha", 5, reward=-1.0, success=False)
        calls(agent, "beta", 5, reward=1.0, success=True)
        ok(http_send(agent, adapt_req(strategy)))
    assert (weight("beta") or 0) > (weight("alpha") or 0), (weight("alpha"), weight("beta"))
