"""The host's limits as the client meets them: the batch limit it discovers, the rate limit."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import httpx
from asgiref.sync import sync_to_async

from feedback.models import Experience as StoredExperience
from learnportal_client import AsyncLearnClient, LearnClient
from tests.client.conftest import SLOW_BACKOFF

if TYPE_CHECKING:
    from tests.client.conftest import Portal


class Counting(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return super().handle_request(request)


def test_a_batch_over_the_hosts_limit_is_split_at_it(portal: Portal, settings: Any) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 3
    transport = Counting()
    with LearnClient(portal.url, portal.token, transport=transport) as client:
        reply = client.experience([{"reward": 0.1 * i} for i in range(10)])
        assert client.batch_limit() == 3
    assert reply.stored == 10
    assert StoredExperience.objects.count() == 10
    posts = [r for r in transport.sent if r.method == "POST"]
    assert len(posts) == 4  # 3 + 3 + 3 + 1
    assert [r.method for r in transport.sent].count("GET") == 1  # discovered once


async def test_the_async_client_splits_at_the_limit_too(portal: Portal, settings: Any) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 3
    async with AsyncLearnClient(portal.url, portal.token) as client:
        reply = await client.experience([{"reward": 0.1 * i} for i in range(10)])
        assert await client.batch_limit() == 3
    assert reply.stored == 10
    assert await sync_to_async(StoredExperience.objects.count)() == 10


def test_turns_are_split_at_the_limit_too(portal: Portal, settings: Any) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 2
    turns = [
        {
            "correlation_id": f"turn-{i}",
            "rated_turn": {"prompt": "p", "response": "r", "model": "m"},
        }
        for i in range(5)
    ]
    with LearnClient(portal.url, portal.token) as client:
        created = client.submit_turns(turns)
        assert (created.received, created.created) == (5, 5)
        assert client.submit_turns(turns).created == 0  # deduplicated by correlation_id


def test_a_rate_limited_client_waits_and_gets_through(portal: Portal, settings: Any) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 1
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    with LearnClient(
        portal.url, portal.token, max_batch=100, sleep=sleep, retry=SLOW_BACKOFF
    ) as client:
        for i in range(3):
            assert client.experience([{"experience_id": f"e{i}", "reward": 1.0}]).stored == 1
    assert waits  # the host said 429 with Retry-After, and the client waited that long
    # The host's Retry-After of a 1 s window: 1, or 0 if the window ended meanwhile; the
    # client's own backoff would have been 5.
    assert all(0 <= w <= 1 for w in waits)
    assert StoredExperience.objects.count() == 3
