"""Retries: `rate_limited` and `unavailable` are sent again, the same bytes, after Retry-After.

The host is played by httpx's MockTransport here (what it answers is the point, not the
server), and waits are recorded instead of slept; test_limits.py meets the real rate limit.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from learnportal_client import AsyncLearnClient, LearnClient, LearnError, Retry

if TYPE_CHECKING:
    from collections.abc import Callable


def error(code: str, status: int, **headers: str) -> httpx.Response:
    body = {"type": "learn/error", "id": "e", "version": "1.0", "ts": 0.0, "req_id": ""}
    body |= {"code": code, "message": code, "details": []}
    return httpx.Response(status, json=body, headers=headers)


def answer(request: httpx.Request) -> httpx.Response:
    sent = json.loads(request.content)
    body: dict[str, Any] = {"type": sent["type"].replace("/req", "/resp"), "id": "r"}
    body |= {"version": "1.0", "ts": 1.0, "req_id": sent["id"]}
    if sent["type"] == "learn/experience/req":
        body["stored"] = len(sent["experiences"])
    if sent["type"] == "learn/adapt/req":
        body |= {"updated": [], "message": ""}
    return httpx.Response(200, json=body)


class Host:
    """Answers each request with the next of `script` (a response, an exception, or `answer`)."""

    def __init__(self, *script: httpx.Response | Exception | None) -> None:
        self.script = list(script)
        self.bodies: list[bytes] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(request.content)
        step = self.script.pop(0) if self.script else None
        if isinstance(step, Exception):
            raise step
        return step or answer(request)


def client_of(host: Host, waits: list[float], retry: Retry | None = None) -> LearnClient:
    return LearnClient(
        "http://host",
        "token",
        transport=httpx.MockTransport(host),
        sleep=waits.append,
        max_batch=1000,
        retry=retry,
    )


EXPERIENCES = [{"experience_id": "e1", "reward": 1.0}]


def test_rate_limited_is_sent_again_after_retry_after_with_the_same_bytes() -> None:
    host, waits = Host(error("rate_limited", 429, **{"Retry-After": "3"})), list[float]()
    assert client_of(host, waits).experience(EXPERIENCES).stored == 1
    assert waits == [3.0]
    assert len(host.bodies) == 2
    assert host.bodies[0] == host.bodies[1]
    assert json.loads(host.bodies[0])["experiences"][0]["experience_id"] == "e1"


def test_unavailable_without_retry_after_backs_off() -> None:
    host, waits = Host(error("unavailable", 503), error("unavailable", 503)), list[float]()
    client_of(host, waits, Retry(backoff=0.5)).experience(EXPERIENCES)
    assert waits == [0.5, 1.0]


def test_a_socket_frames_retry_after_counts_like_the_header() -> None:
    frame = error("rate_limited", 429)
    body = json.loads(frame.content) | {"retry_after": 2}
    host, waits = Host(httpx.Response(429, json=body)), list[float]()
    client_of(host, waits).stats()
    assert waits == [2.0]


def test_the_last_error_is_raised_after_the_attempts() -> None:
    host, waits = Host(*[error("rate_limited", 429, **{"Retry-After": "1"})] * 3), list[float]()
    with pytest.raises(LearnError) as refused:
        client_of(host, waits, Retry(attempts=3)).stats()
    assert refused.value.code == "rate_limited"
    assert refused.value.retry_after == 1.0
    assert len(host.bodies) == 3


def test_other_refusals_are_not_retried() -> None:
    host, waits = Host(error("conflict", 409)), list[float]()
    with pytest.raises(LearnError) as refused:
        client_of(host, waits).experience(EXPERIENCES)
    assert refused.value.code == "conflict"
    assert (len(host.bodies), waits) == (1, [])


def test_no_answer_is_retried_for_a_batch_the_ids_make_safe() -> None:
    host, waits = Host(httpx.ConnectError("refused")), list[float]()
    assert client_of(host, waits).experience(EXPERIENCES).stored == 1
    assert host.bodies[0] == host.bodies[1]


def test_no_answer_is_not_retried_for_an_adapt_that_could_act_twice() -> None:
    host, waits = Host(httpx.ReadTimeout("no answer")), list[float]()
    with pytest.raises(LearnError) as refused:
        client_of(host, waits).adapt()
    assert refused.value.code == "unreachable"
    assert len(host.bodies) == 1


def test_a_proxys_502_is_unavailable() -> None:
    host, waits = Host(httpx.Response(502, text="<html>bad gateway</html>")), list[float]()
    client_of(host, waits).stats()
    assert len(waits) == 1


async def test_the_async_client_retries_alike() -> None:
    host, waits = Host(error("rate_limited", 429, **{"Retry-After": "4"})), list[float]()

    async def record(seconds: float) -> None:
        waits.append(seconds)

    sleep: Callable[[float], Any] = record
    async with AsyncLearnClient(
        "http://host", "t", transport=httpx.MockTransport(host), sleep=sleep, max_batch=10
    ) as client:
        assert (await client.experience(EXPERIENCES)).stored == 1
    assert waits == [4.0]
    assert host.bodies[0] == host.bodies[1]


def test_a_retry_after_longer_than_max_wait_is_raised_at_once_not_cut_short() -> None:
    host, waits = Host(error("rate_limited", 429, **{"Retry-After": "60"})), list[float]()
    with pytest.raises(LearnError) as refused:
        client_of(host, waits, Retry(max_wait=30)).stats()
    assert (refused.value.code, refused.value.retry_after) == ("rate_limited", 60.0)
    assert (len(host.bodies), waits) == (1, [])
