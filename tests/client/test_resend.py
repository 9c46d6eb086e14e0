"""Resending kept items: the client sends a kept item the same every time, and the host stores it
once and counts it as recorded (feedback/idempotency.py says what identifies its content).

The first tests read what the client sends (httpx's MockTransport as the host); the others
resend kept dicts through every way the client sends to a live server.
"""

from __future__ import annotations

import copy
import json
import time
from typing import TYPE_CHECKING, Any

import httpx
from asgiref.sync import sync_to_async

from feedback.models import Experience as StoredExperience
from feedback.models import Feedback as StoredFeedback
from learnportal_client import AsyncLearnClient, LearnClient
from tests.client.test_retry import Host, answer, error

if TYPE_CHECKING:
    from learnportal_client.calls import AsyncLearnCalls
    from tests.client.conftest import Portal

TURN = {"prompt": "Summarize", "response": "A summary.", "model": "writer"}


def kept_feedbacks() -> list[dict[str, Any]]:
    return [
        {"feedback_id": "kept-fb-1", "polarity": "positive", "score": 0.5, "rated_turn": TURN},
        {"feedback_id": "kept-fb-2", "polarity": "negative", "score": -0.5},
    ]


def kept_experiences() -> list[dict[str, Any]]:
    return [
        {"experience_id": "kept-exp-1", "action": {"component_name": "search"}, "reward": 1.0},
        {"experience_id": "kept-exp-2", "reward": 0.0},
    ]


def feedback_answer(request: httpx.Request) -> httpx.Response:
    reply = answer(request)
    sent = json.loads(request.content)
    if sent["type"] == "learn/feedback/req":
        body = json.loads(reply.content) | {"recorded": len(sent["feedbacks"]), "new_score": None}
        return httpx.Response(200, json=body)
    return reply


class EchoHost(Host):
    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(request.content)
        return feedback_answer(request)


def items_sent(host: Host, field: str) -> list[list[dict[str, Any]]]:
    return [json.loads(body)[field] for body in host.bodies]


def test_a_kept_dict_sent_twice_is_sent_the_same_and_left_unchanged() -> None:
    host = EchoHost()
    feedbacks, experiences = kept_feedbacks(), kept_experiences()
    as_kept = copy.deepcopy((feedbacks, experiences))
    with LearnClient("http://host", "t", transport=httpx.MockTransport(host), max_batch=100) as c:
        for _ in range(2):
            c.feedback(feedbacks)
            c.experience(experiences)
    first_fb, first_exp, second_fb, second_exp = (json.loads(b) for b in host.bodies)
    assert first_fb["feedbacks"] == second_fb["feedbacks"] == feedbacks  # no stamp added
    assert first_exp["experiences"] == second_exp["experiences"] == experiences
    assert (feedbacks, experiences) == as_kept


async def test_a_kept_dict_sent_twice_by_the_async_client_is_sent_the_same() -> None:
    host = EchoHost()
    feedbacks = kept_feedbacks()
    transport = httpx.MockTransport(host)
    async with AsyncLearnClient("http://host", "t", transport=transport, max_batch=100) as c:
        await c.feedback(feedbacks)
        await c.feedback(feedbacks)
    first, second = items_sent(host, "feedbacks")
    assert first == second == feedbacks


def test_a_ts_the_caller_chose_is_sent() -> None:
    host = EchoHost()
    with LearnClient("http://host", "t", transport=httpx.MockTransport(host), max_batch=100) as c:
        c.experience([{"experience_id": "e", "reward": 1.0, "ts": 1716000000.0}])
    assert items_sent(host, "experiences") == [
        [{"experience_id": "e", "reward": 1.0, "ts": 1716000000.0}]
    ]


def stored_counts() -> tuple[int, int]:
    return StoredFeedback.objects.count(), StoredExperience.objects.count()


def test_a_kept_batch_resent_through_the_client_is_stored_once_and_recorded(
    client: LearnClient,
) -> None:
    for _ in range(2):
        assert client.feedback(kept_feedbacks()).recorded == 2
        assert client.experience(kept_experiences()).stored == 2
    assert stored_counts() == (2, 2)


async def resend_twice(sender: AsyncLearnCalls) -> None:
    for _ in range(2):
        assert (await sender.feedback(kept_feedbacks())).recorded == 2
        assert (await sender.experience(kept_experiences())).stored == 2


async def test_a_kept_batch_resent_through_the_async_client_is_stored_once_and_recorded(
    portal: Portal,
) -> None:
    async with AsyncLearnClient(portal.url, portal.token) as client:
        await resend_twice(client)
    assert await sync_to_async(stored_counts)() == (2, 2)


async def test_a_kept_batch_resent_over_an_async_session_is_stored_once_and_recorded(
    portal: Portal,
) -> None:
    async with (
        AsyncLearnClient(portal.url, portal.token) as client,
        await client.session() as session,
    ):
        await resend_twice(session)
    assert await sync_to_async(stored_counts)() == (2, 2)


def test_a_kept_batch_resent_over_a_session_is_stored_once_and_recorded(
    client: LearnClient,
) -> None:
    with client.session() as session:
        for _ in range(2):
            assert session.feedback(kept_feedbacks()).recorded == 2
    assert stored_counts()[0] == 2


def test_a_buffer_sends_an_item_with_the_ts_it_was_added_at_every_time() -> None:
    host = Host(error("unavailable", 503))
    with LearnClient("http://host", "t", transport=httpx.MockTransport(host), max_batch=100) as c:
        buffer = c.buffer(max_interval=0.01)
        before = time.time()
        buffer.add_experience(kept_experiences()[0])
        buffer.flush()
        buffer.close()
    first, second = items_sent(host, "experiences")
    assert first == second  # the retry after the 503 is the same item
    assert before <= first[0]["ts"] <= time.time()
