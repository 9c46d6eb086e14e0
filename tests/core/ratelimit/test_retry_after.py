"""No refusal says to retry after 0 seconds: a client told 0 retries at once into the same
refusal. A second that turns while the count is taken once made django-ratelimit's time left -1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.ratelimit import rate_limited
from learnportal_protocol.errors import ErrorCode, LearnError
from tests.builders import stats_req

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.harness import Actor

T0 = 1_772_442_000.0


class SecondTurningClock:
    """What django-ratelimit reads: the window's second, then the next one when it asks the
    time left of the second request (the count's cache round trip took the second over)."""

    def __init__(self) -> None:
        self.reads = iter([T0, T0, T0, T0 + 1.0])

    def time(self) -> float:
        return next(self.reads, T0 + 1.0)


def _learn(agent: Actor) -> Any:
    return agent.learn(stats_req())


def _rest(agent: Actor) -> Any:
    return agent.client.get("/api/routing/")


@pytest.mark.parametrize("send", [_learn, _rest], ids=["learn", "rest"])
def test_a_second_that_turns_while_counting_still_says_wait_one_second(
    agent: Actor, settings: Any, monkeypatch: pytest.MonkeyPatch, send: Callable[[Actor], Any]
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 1  # one a second: windows of one second
    monkeypatch.setattr("django_ratelimit.core.time", SecondTurningClock())
    assert send(agent).status_code == 200
    refused = send(agent)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "1"
    assert refused.json()["retry_after"] == 1
    assert "Retry after 1 s" in refused.json()["message"]


@pytest.mark.parametrize("wait", [0, -1])
def test_no_refusal_names_a_wait_under_one_second(wait: int) -> None:
    assert rate_limited(wait).retry_after == 1
    assert LearnError(ErrorCode.UNAVAILABLE, "down", retry_after=wait).retry_after == 1
