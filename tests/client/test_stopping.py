"""The opt-in signal hook: a signal closes the client's buffers, then goes on as it did before.

Here in the test process, with SIGUSR1 and a host played by httpx's MockTransport; the crash
tests of test_buffer.py stop agent processes with a real SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from typing import TYPE_CHECKING

import httpx
import pytest

from learnportal_client import AsyncLearnClient, LearnClient
from tests.client.test_retry import Host

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

SIGNAL = signal.SIGUSR1


class Previous:
    """A handler of SIGNAL installed before the hook, and the signals it received."""

    def __init__(self) -> None:
        self.received: list[int] = []

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)


@pytest.fixture
def previous() -> Iterator[Previous]:
    handler = Previous()
    before = signal.signal(SIGNAL, handler)
    yield handler
    signal.signal(SIGNAL, before)


def sent_ids(host: Host) -> list[str]:
    return [e["experience_id"] for body in host.bodies for e in json.loads(body)["experiences"]]


def test_a_signal_closes_the_buffers_then_calls_the_handler_it_replaced(
    previous: Previous,
) -> None:
    host = Host()
    with LearnClient("http://host", "t", transport=httpx.MockTransport(host), max_batch=100) as c:
        c.flush_on_signals(SIGNAL)
        buffer = c.buffer(max_interval=3600)
        ids = [buffer.add_experience({"reward": 1.0}) for _ in range(3)]
        os.kill(os.getpid(), SIGNAL)  # handled here, in the main thread, before kill returns
        assert previous.received == [SIGNAL]
        assert sent_ids(host) == ids
        with pytest.raises(RuntimeError, match="closed"):
            buffer.add_experience({"reward": 1.0})


def test_an_ignored_signal_is_still_ignored_after_closing(previous: Previous) -> None:
    signal.signal(SIGNAL, signal.SIG_IGN)
    host = Host()
    with LearnClient("http://host", "t", transport=httpx.MockTransport(host), max_batch=100) as c:
        c.flush_on_signals(SIGNAL)
        buffer = c.buffer(max_interval=3600)
        added = buffer.add_experience({"reward": 1.0})
        os.kill(os.getpid(), SIGNAL)
        assert sent_ids(host) == [added]  # and the test process is still here


async def test_in_an_event_loop_a_signal_closes_the_async_buffers_then_goes_on_as_before(
    previous: Previous,
) -> None:
    host = Host()
    transport = httpx.MockTransport(host)
    async with AsyncLearnClient("http://host", "t", transport=transport, max_batch=100) as c:
        c.flush_on_signals(SIGNAL)
        buffer = c.buffer(max_interval=3600)
        ids = [buffer.add_experience({"reward": 1.0}) for _ in range(3)]
        os.kill(os.getpid(), SIGNAL)
        for _ in range(500):
            if previous.received:
                break
            await asyncio.sleep(0.01)
        assert previous.received == [SIGNAL]
        assert sent_ids(host) == ids
    assert signal.getsignal(SIGNAL) is previous  # the handler it replaced is back


async def test_in_an_event_loop_every_hooked_client_closes_its_buffers(previous: Previous) -> None:
    hosts = [Host(), Host()]
    async with (
        AsyncLearnClient(
            "http://a", "t", transport=httpx.MockTransport(hosts[0]), max_batch=9
        ) as a,
        AsyncLearnClient(
            "http://b", "t", transport=httpx.MockTransport(hosts[1]), max_batch=9
        ) as b,
    ):
        added = []
        for client in (a, b):
            client.flush_on_signals(SIGNAL)
            added.append([client.buffer(max_interval=3600).add_experience({"reward": 1.0})])
        os.kill(os.getpid(), SIGNAL)
        for _ in range(500):
            if previous.received:
                break
            await asyncio.sleep(0.01)
        assert [sent_ids(host) for host in hosts] == added
        assert previous.received == [SIGNAL]
