"""`deadline`: one request, every try and every wait included, is over within it.

The hosts here are played: httpx's MockTransport (what it answers is the point), a socket that
takes connections and never answers, and a WebSocket server that never replies.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from websockets.sync.server import serve

from learnportal_client import AsyncLearnClient, LearnClient, LearnError, Retry
from tests.client.test_retry import Host, error

if TYPE_CHECKING:
    from collections.abc import Iterator

    from websockets.sync.server import ServerConnection

FAR = 30.0  # a timeout no test here waits out: what ends a request is its deadline


def client_of(host: Host, **options: Any) -> LearnClient:
    transport = httpx.MockTransport(host)
    return LearnClient("http://host", "t", transport=transport, max_batch=100, **options)


def test_a_wait_the_deadline_cannot_afford_is_not_waited() -> None:
    host, waits = Host(error("rate_limited", 429, **{"Retry-After": "3"})), list[float]()
    client = LearnClient(
        "http://host", "t", transport=httpx.MockTransport(host), sleep=waits.append, deadline=1.0
    )
    with pytest.raises(LearnError) as refused:
        client.stats()
    assert (refused.value.code, refused.value.retry_after) == ("rate_limited", 3.0)
    assert (len(host.bodies), waits) == (1, [])


def test_the_deadline_covers_every_try_and_wait() -> None:
    host = Host(*[error("unavailable", 503, **{"Retry-After": "0.1"})] * 100)
    started = time.monotonic()
    with pytest.raises(LearnError) as refused:
        client_of(host, deadline=0.6, retry=Retry(attempts=100)).stats()
    assert refused.value.code == "unavailable"
    assert time.monotonic() - started < 0.6
    assert 2 <= len(host.bodies) <= 6  # tries 0.1 s apart, none started past 0.6 s


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A host that takes the connection and the request, and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


def test_a_try_without_an_answer_is_cut_at_the_deadline(silent_url: str) -> None:
    started = time.monotonic()
    with (
        LearnClient(silent_url, "t", timeout=FAR, deadline=0.5, max_batch=100) as client,
        pytest.raises(LearnError) as refused,
    ):
        client.stats()
    assert refused.value.code == "unreachable"
    assert time.monotonic() - started < 5.0


async def test_an_awaited_try_without_an_answer_is_cut_at_the_deadline(silent_url: str) -> None:
    started = time.monotonic()
    async with AsyncLearnClient(silent_url, "t", timeout=FAR, deadline=0.5, max_batch=100) as c:
        with pytest.raises(LearnError) as refused:
            await c.stats()
    assert refused.value.code == "unreachable"
    assert time.monotonic() - started < 5.0


@pytest.fixture
def mute_socket_url() -> Iterator[str]:
    """A WebSocket host that takes frames and never replies."""

    def handler(connection: ServerConnection) -> None:
        for _ in connection:
            pass

    with serve(handler, "127.0.0.1", 0) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.socket.getsockname()[1]}"
        server.shutdown()


def test_a_session_without_a_reply_is_cut_at_the_deadline_and_closed(
    mute_socket_url: str,
) -> None:
    with LearnClient(mute_socket_url, "t", deadline=0.5, max_batch=100) as client:
        session = client.session()
        with pytest.raises(LearnError) as refused:
            session.stats()
        assert refused.value.code == "unreachable"
        with pytest.raises(LearnError):  # closed: a late reply is never read as another's
            session.stats()


async def test_an_awaited_session_without_a_reply_is_cut_at_the_deadline(
    mute_socket_url: str,
) -> None:
    async with (
        AsyncLearnClient(mute_socket_url, "t", deadline=0.5, max_batch=100) as client,
        await client.session() as session,
    ):
        with pytest.raises(LearnError) as refused:
            await asyncio.wait_for(session.stats(), timeout=5.0)
    assert refused.value.code == "unreachable"


@pytest.mark.parametrize("deadline", [0, -1.0])
def test_a_deadline_is_above_zero(deadline: float) -> None:
    with pytest.raises(ValueError, match="deadline"):
        LearnClient("http://host", "t", deadline=deadline)
