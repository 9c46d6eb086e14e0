"""Load generators: sequential HTTP keep-alive, concurrent HTTP, and pipelined WebSocket."""

from __future__ import annotations

import asyncio
import http.client
import statistics
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx
import orjson
import websockets

from bench.harness.figures import percentile

if TYPE_CHECKING:
    from collections.abc import Sequence


@dataclass
class Run:
    requests: int
    seconds: float
    latencies: list[float]  # seconds, one per request where measured
    errors: int = 0

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        return percentile(self.latencies, q)

    @property
    def median(self) -> float:
        return statistics.median(self.latencies) if self.latencies else 0.0


def _ok(status: int, body: bytes, expect_type: str) -> bool:
    if status != 200:
        return False
    reply_type: str | None = orjson.loads(body).get("type")
    return reply_type == expect_type


def http_sequential(
    base_url: str, headers: dict[str, str], bodies: Sequence[bytes], expect_type: str
) -> Run:
    """One httpx keep-alive connection, one request after another."""
    latencies, errors = [], 0
    with httpx.Client(base_url=base_url, headers=headers, timeout=120) as client:
        client.post("/api/learn/", content=bodies[0])  # connect and warm up, not counted
        start = time.perf_counter()
        for body in bodies:
            t0 = time.perf_counter()
            response = client.post("/api/learn/", content=body)
            latencies.append(time.perf_counter() - t0)
            errors += not _ok(response.status_code, response.content, expect_type)
        seconds = time.perf_counter() - start
    return Run(len(bodies), seconds, latencies, errors)


def http_sequential_raw(
    base_url: str,
    headers: dict[str, str],
    bodies: Sequence[bytes],
    expect_type: str,
    path: str = "/api/learn/",
) -> Run:
    """The same with the standard library's http.client: much less client-side work a request."""
    host, port = base_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    latencies, errors = [], 0

    def post(body: bytes) -> tuple[int, bytes]:
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()

    post(bodies[0])
    start = time.perf_counter()
    for body in bodies:
        t0 = time.perf_counter()
        status, content = post(body)
        latencies.append(time.perf_counter() - t0)
        errors += not _ok(status, content, expect_type)
    seconds = time.perf_counter() - start
    conn.close()
    return Run(len(bodies), seconds, latencies, errors)


def http_concurrent(
    base_url: str,
    headers: dict[str, str],
    bodies: Sequence[bytes],
    expect_type: str,
    connections: int,
) -> Run:
    """`connections` keep-alive connections in threads, each sending its share sequentially."""
    shares = [bodies[i::connections] for i in range(connections)]
    results: list[Run] = []
    lock = threading.Lock()
    barrier = threading.Barrier(connections + 1)

    def worker(share: Sequence[bytes]) -> None:
        latencies, errors = [], 0
        host, port = base_url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
        conn.request("POST", "/api/learn/", body=share[0], headers=headers)
        conn.getresponse().read()
        barrier.wait()
        for body in share:
            t0 = time.perf_counter()
            conn.request("POST", "/api/learn/", body=body, headers=headers)
            response = conn.getresponse()
            content = response.read()
            latencies.append(time.perf_counter() - t0)
            errors += not _ok(response.status, content, expect_type)
        conn.close()
        with lock:
            results.append(Run(len(share), 0.0, latencies, errors))

    threads = [threading.Thread(target=worker, args=(share,)) for share in shares]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    latencies = [x for r in results for x in r.latencies]
    return Run(len(bodies), seconds, latencies, sum(r.errors for r in results))


async def _ws_pipelined(url: str, token: str, bodies: Sequence[bytes], window: int) -> Run:
    async with websockets.connect(
        url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=2**26
    ) as ws:
        await ws.send(bodies[0].decode())  # warm up, not counted
        await ws.recv()
        frames = [(orjson.loads(body)["id"], body.decode()) for body in bodies]
        slots = asyncio.Semaphore(window)
        sent_at: dict[str, float] = {}
        latencies: list[float] = []
        errors = 0

        async def sender() -> None:
            for req_id, frame in frames:
                await slots.acquire()
                sent_at[req_id] = time.perf_counter()
                await ws.send(frame)

        start = time.perf_counter()
        task = asyncio.create_task(sender())
        for _ in bodies:
            reply = orjson.loads(await ws.recv())
            now = time.perf_counter()
            slots.release()
            t0 = sent_at.pop(reply.get("req_id", ""), None)
            if t0 is not None:
                latencies.append(now - t0)
            # A reply must carry the req_id of a request in flight, and not be an error.
            errors += t0 is None or reply.get("type") == "learn/error"
        seconds = time.perf_counter() - start
        await task
    return Run(len(bodies), seconds, latencies, errors)


def ws_pipelined(url: str, token: str, bodies: Sequence[bytes], window: int = 100) -> Run:
    """One WebSocket: a sender keeps up to `window` requests in flight while replies are read."""
    return asyncio.run(_ws_pipelined(url, token, bodies, window))


def ws_sequential(url: str, token: str, bodies: Sequence[bytes]) -> Run:
    """One WebSocket, one request in flight: the per-request round trip without pipelining."""
    return asyncio.run(_ws_pipelined(url, token, bodies, 1))
