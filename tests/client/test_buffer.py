"""The background buffers, `LearnBuffer` (a thread) and `AsyncLearnBuffer` (a task), against a
live server: both send by size, by time, on flush and on close, and never drop an item silently.

Each behaviour is one test run with both buffers (`buffers`): the blocking one is awaited through
`asyncio.to_thread`, so that one test body reads both.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import sync_to_async

from feedback.models import Experience as StoredExperience
from feedback.models import Feedback as StoredFeedback
from learnportal_client import (
    AsyncLearnBuffer,
    AsyncLearnClient,
    LearnBuffer,
    LearnClient,
    LearnError,
    Retry,
    Unsent,
)
from tests.client.outage import AsyncOutageTransport, Outage, OutageTransport
from tests.processes import REPO

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from tests.client.conftest import Portal

AGENT = REPO / "tests" / "client" / "buffering_agent.py"
ONE_TRY = Retry(attempts=1)  # what is under test is the buffer's own trying again


class Awaited:
    """A LearnBuffer with the awaited `flush` and `aclose` of an AsyncLearnBuffer."""

    def __init__(self, buffer: LearnBuffer) -> None:
        self.buffer = buffer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.buffer, name)

    async def flush(self, timeout: float | None = None) -> None:
        await asyncio.to_thread(self.buffer.flush, timeout)

    async def aclose(self, timeout: float = 10.0) -> list[Unsent]:
        return await asyncio.to_thread(self.buffer.close, timeout)


Buffer = Awaited | AsyncLearnBuffer
MakeBuffer = Callable[..., Buffer]


@pytest.fixture(params=["sync", "async"])
async def buffers(request: pytest.FixtureRequest, portal: Portal) -> AsyncIterator[MakeBuffer]:
    """`buffers(url=..., outage=..., max_batch=..., **buffer options)`: a buffer of that kind."""
    made: list[tuple[Buffer, LearnClient | AsyncLearnClient]] = []

    def make(
        url: str = portal.url,
        *,
        outage: Outage | None = None,
        max_batch: int | None = None,
        **options: Any,
    ) -> Buffer:
        if request.param == "sync":
            transport = OutageTransport(outage) if outage else None
            client = LearnClient(
                url, portal.token, retry=ONE_TRY, max_batch=max_batch, transport=transport
            )
            made.append((Awaited(client.buffer(**options)), client))
        else:
            async_transport = AsyncOutageTransport(outage) if outage else None
            async_client = AsyncLearnClient(
                url, portal.token, retry=ONE_TRY, max_batch=max_batch, transport=async_transport
            )
            made.append((async_client.buffer(**options), async_client))
        return made[-1][0]

    yield make
    for buffer, client in made:
        await buffer.aclose()
        if isinstance(client, AsyncLearnClient):
            await client.close()
        else:
            client.close()


async def until(check: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait for what the sender does (not how fast: the timeout is generous)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not done in time"
        await asyncio.sleep(0.02)


def dead_url() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


def stored_ids() -> set[str]:
    return set(StoredExperience.objects.values_list("experience_id", flat=True))


def stored_feedback_ids() -> list[str]:
    return list(StoredFeedback.objects.values_list("feedback_id", flat=True))


async def test_a_full_buffer_is_sent_without_waiting(buffers: MakeBuffer) -> None:
    buffer = buffers(max_items=5, max_interval=3600)
    ids = [buffer.add_experience({"reward": float(i) / 10}) for i in range(5)]
    await until(lambda: buffer.pending == 0)
    assert await sync_to_async(stored_ids)() == set(ids)


async def test_an_item_waiting_max_interval_is_sent(buffers: MakeBuffer) -> None:
    buffer = buffers(max_items=1000, max_interval=0.05)
    added = buffer.add_feedback({"polarity": "positive", "component_name": "c"})
    await until(lambda: buffer.pending == 0)
    assert await sync_to_async(stored_feedback_ids)() == [added]


async def test_flush_returns_once_everything_added_is_stored(buffers: MakeBuffer) -> None:
    buffer = buffers(max_items=3, max_interval=3600)
    ids = [buffer.add_experience({"reward": 0.5}) for _ in range(7)]
    rated = buffer.add_feedback({"polarity": "neutral"})
    await buffer.flush()
    assert await sync_to_async(stored_ids)() == set(ids)
    assert await sync_to_async(stored_feedback_ids)() == [rated]


async def test_closing_sends_what_is_waiting(buffers: MakeBuffer) -> None:
    buffer = buffers(max_interval=3600)
    ids = [buffer.add_experience({"reward": 0.5}) for _ in range(3)]
    assert await buffer.aclose() == []
    assert await sync_to_async(stored_ids)() == set(ids)
    with pytest.raises(RuntimeError, match="closed"):
        buffer.add_experience({"reward": 0.5})


async def test_a_batch_the_host_was_unavailable_for_is_sent_again_with_the_same_ids(
    buffers: MakeBuffer,
) -> None:
    outage = Outage(failures=2)
    buffer = buffers(outage=outage, max_batch=100, max_interval=0.05)
    ids = [buffer.add_experience({"reward": 1.0}) for _ in range(4)]
    await buffer.flush()
    assert outage.sent == [ids, ids, ids]  # twice 503, then stored
    assert buffer.unsent == []
    assert await sync_to_async(stored_ids)() == set(ids)


async def test_an_item_the_host_refuses_is_reported_and_the_rest_is_stored(
    buffers: MakeBuffer,
) -> None:
    reported: list[Unsent] = []
    buffer = buffers(max_interval=3600, on_unsent=reported.extend)
    good = buffer.add_feedback({"polarity": "positive"})
    bad = buffer.add_feedback({"polarity": "positive", "source": "env"})
    await buffer.flush()
    assert await sync_to_async(stored_feedback_ids)() == [good]
    assert [(u.item_id, u.error and u.error.code) for u in reported] == [(bad, "forbidden")]
    assert buffer.unsent == reported


async def test_an_invalid_item_is_refused_when_added(buffers: MakeBuffer) -> None:
    buffer = buffers()
    with pytest.raises(LearnError, match="confidence"):
        buffer.add_feedback({"polarity": "positive", "confidence": 2})
    assert buffer.pending == 0


async def test_items_the_host_never_took_are_returned_and_reported_on_close(
    buffers: MakeBuffer,
) -> None:
    reported: list[Unsent] = []
    buffer = buffers(dead_url(), max_batch=100, max_interval=3600, on_unsent=reported.extend)
    ids = [buffer.add_experience({"reward": 1.0}) for _ in range(3)]
    unsent = await buffer.aclose(timeout=30)
    assert [u.item_id for u in unsent] == ids
    assert all(u.error is None and u.kind == "experiences" for u in unsent)
    assert reported == unsent


def test_an_async_buffer_whose_event_loop_ends_reports_what_it_had_not_sent() -> None:
    reported: list[Unsent] = []

    async def agent() -> list[str]:
        client = AsyncLearnClient(dead_url(), "t", retry=ONE_TRY, max_batch=100)
        buffer = client.buffer(max_interval=3600, on_unsent=reported.extend)
        return [buffer.add_experience({"reward": 1.0}) for _ in range(3)]

    ids = asyncio.run(agent())  # ends with the buffer open: its task is cancelled
    assert [u.item_id for u in reported] == ids


def test_an_async_buffer_is_made_in_the_running_event_loop() -> None:
    client = AsyncLearnClient(dead_url(), "t", max_batch=100)
    with pytest.raises(RuntimeError, match="running event loop"):
        client.buffer()


def agent(
    url: str, token: str, flushed: int, late: int, mode: str, kind: str
) -> subprocess.Popen[str]:
    # The agent's process has the client and the protocol models, not the server's packages.
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'clients' / 'python'}{os.pathsep}{REPO}"}
    return subprocess.Popen(
        [sys.executable, str(AGENT), url, token, str(flushed), str(late), mode, kind],
        cwd=AGENT.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stopped(process: subprocess.Popen[str], flushed: int, signum: int) -> dict[str, Any]:
    """What the agent said once it had flushed, after stopping it with `signum`."""
    try:
        assert process.stdout is not None
        said: dict[str, Any] = json.loads(process.stdout.readline() or "{}")
        assert said.get("flushed") == flushed, process.stderr and process.stderr.read()
        os.kill(process.pid, signum)
        process.wait(timeout=60)
    finally:
        process.kill()
        process.wait(timeout=30)
    return said


def agent_ids(flushed: int, late: int) -> set[str]:
    return {f"flushed-{i}" for i in range(flushed)} | {f"late-{i}" for i in range(late)}


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_agent_killed_after_flush_lost_nothing_it_flushed(portal: Portal, kind: str) -> None:
    process = agent(portal.url, portal.token, flushed=120, late=30, mode="wait", kind=kind)
    said = stopped(process, 120, signal.SIGKILL)
    assert said["server_modules"] == []  # the client needs no Django
    assert agent_ids(120, 0) <= stored_ids()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_agent_stopped_with_sigterm_under_the_signal_hook_lost_nothing(
    portal: Portal, kind: str
) -> None:
    process = agent(portal.url, portal.token, flushed=120, late=300, mode="term", kind=kind)
    stopped(process, 120, signal.SIGTERM)
    assert process.returncode == -signal.SIGTERM  # it still ends as SIGTERM ends it
    assert stored_ids() == agent_ids(120, 300)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_buffer_that_outlives_its_client_is_sent_when_the_client_closes(
    portal: Portal, kind: str
) -> None:
    process = agent(portal.url, portal.token, flushed=0, late=300, mode="outlive", kind=kind)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert stored_ids() == agent_ids(0, 300)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_agent_that_exits_without_closing_reports_what_it_could_not_send(kind: str) -> None:
    process = agent(dead_url(), "t", flushed=0, late=3, mode="exit", kind=kind)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "3 items were not stored: late-0, late-1, late-2" in stderr
