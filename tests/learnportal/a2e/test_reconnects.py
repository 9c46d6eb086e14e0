"""A stream cut again and again mid-burst, while replies keep coming, writes each reply once.

Between the agent's stream and the live server sits a small TCP proxy (asyncio, loopback only)
that cuts the stream's connection after a few kilobytes, twelve times; the agent reconnects each
time with `Last-Event-ID`, as a browser's EventSource does, while another thread keeps sending.
Every reply arrives exactly once and in the order its request was sent, on either store.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import random
import threading
from typing import TYPE_CHECKING

import pytest

from learnportal.a2e import sessions
from learnportal.a2e.memorystore import MemoryStore
from tests.learnportal.a2e.client import A2ESession, Stream, message

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from tests.harness import Actor

    Connect = Callable[..., A2ESession]

CUTS = 12
AFTER_CUTS = 50  # pings sent once the last cut is made: the last stream reads them whole
CUT_BYTES = (1500, 6000)
POLL_SECONDS = 0.2  # a stream connection is cut after this many bytes from the host


class CuttingProxy:
    """Forwards loopback connections to `upstream`; cuts the first `cuts` of them (both sides
    at once) after a random number of bytes from the host, so that an event may be cut in two."""

    def __init__(self, upstream: tuple[str, int], cuts: int, seed: int = 21) -> None:
        self.upstream = upstream
        self.cuts_left = cuts
        self.cut = 0
        self.rng = random.Random(seed)
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> CuttingProxy:
        self._thread.start()
        server = asyncio.run_coroutine_threadsafe(self._serve(), self.loop).result(10)
        self.port = server.sockets[0].getsockname()[1]
        self._server = server
        return self

    def __exit__(self, *_: object) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    async def _close(self) -> None:
        self._server.close()
        for writer in list(self._writers):
            writer.close()  # the host sees its stream end, and the live server may stop
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()

    async def _serve(self) -> asyncio.Server:
        return await asyncio.start_server(self._connection, "127.0.0.1", 0)

    async def _connection(
        self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter
    ) -> None:
        host_r, host_w = await asyncio.open_connection(*self.upstream)
        self._writers |= {client_w, host_w}
        budget: int | None = None
        if self.cuts_left > 0:
            self.cuts_left -= 1
            budget = self.rng.randint(*CUT_BYTES)
        to_host = asyncio.ensure_future(self._pipe(client_r, host_w, None))
        await self._pipe(host_r, client_w, budget)
        if budget is not None:
            self.cut += 1
        to_host.cancel()
        for writer in (client_w, host_w):
            writer.close()
            self._writers.discard(writer)

    @staticmethod
    async def _pipe(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, budget: int | None
    ) -> None:
        with contextlib.suppress(OSError):
            while chunk := await reader.read(4096 if budget is None else min(4096, budget)):
                writer.write(chunk)
                await writer.drain()
                if budget is not None:
                    budget -= len(chunk)
                    if budget <= 0:
                        return


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from django.conf import settings

    from learnportal.a2e.redisstore import RedisStore

    kept = MemoryStore() if request.param == "memory" else RedisStore(settings.REDIS_URL)
    monkeypatch.setattr(sessions, "_store", kept)
    yield request.param


def test_a_stream_cut_twelve_times_mid_burst_writes_every_reply_once_in_order(
    store_kind: str, connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    assert session.stream is not None
    last_event_id = session.stream.last_event_id
    session.stream.close()
    host = session.base_url.split("//")[1].split("/")[0].split(":")
    sent: list[str] = []
    with CuttingProxy((host[0], int(host[1])), CUTS) as proxy:
        done = threading.Event()
        failures: list[BaseException] = []

        def keep_sending() -> None:
            extra = AFTER_CUTS
            try:
                while extra > 0:
                    ping = message("ping")
                    session.send(ping)
                    sent.append(ping["id"])
                    if proxy.cut >= CUTS:
                        extra -= 1
            except BaseException as exc:
                failures.append(exc)
            finally:
                done.set()

        sender = threading.Thread(target=keep_sending, daemon=True)
        sender.start()
        via_proxy = f"http://127.0.0.1:{proxy.port}/a2e"
        replies: list[str] = []

        def answered() -> bool:
            return done.is_set() and len(replies) >= len(sent)

        while not answered():
            stream = Stream(via_proxy, session.session_id, session.headers, last_event_id)
            while not answered():
                try:
                    reply = stream.events.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    continue  # the last reply may have come before its ping was counted
                if reply is None:
                    break  # cut: reconnect
                replies.append(reply["req_id"])
            last_event_id = stream.last_event_id
            stream.close()
        sender.join(30)
    assert not failures
    assert proxy.cut == CUTS
    assert replies == sent  # every reply once, in the order its request was sent
