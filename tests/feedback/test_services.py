"""Behaviour that needs the real services of a deployment: PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connections
from rest_framework.test import APIClient

from core.accounts.roles import Action
from core.events import broadcast_now, dashboard_group
from feedback.models import ComponentStats, Feedback
from tests.builders import feedback, feedback_req

if TYPE_CHECKING:
    from tests.harness import Actor

THREADS = 4


def _send_concurrently(raw_token: str, body: bytes, threads: int) -> list[Any]:
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads

    def worker(index: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_token}")
            barrier.wait(timeout=30)
            response = client.post("/api/learn/", data=body, content_type="application/json")
            results[index] = (response.status_code, response.json())
        except Exception as exc:  # reported by the assertions below
            results[index] = exc
        finally:
            connections.close_all()

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=60)
    return results


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_feedback_sent_concurrently_is_stored_once(agent: Actor) -> None:
    item = feedback(feedback_id="fb-race", component_name="racer", score=1.0, confidence=0.5)
    body = orjson.dumps(feedback_req(item))
    results = _send_concurrently(agent.token, body, THREADS)
    statuses = [result[0] for result in results]
    assert all(status < 500 for status in statuses), results
    assert all(status == 200 for status in statuses), results
    assert all(result[1]["recorded"] == 1 for result in results)
    assert Feedback.objects.filter(feedback_id="fb-race").count() == 1
    stats = ComponentStats.objects.get(component_name="racer")
    assert (stats.feedback_count, stats.score_weight) == (1, 0.5)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_experience_sent_concurrently_is_stored_once(agent: Actor) -> None:
    from feedback.models import Experience

    body = orjson.dumps(
        {
            "type": "learn/experience/req",
            "experiences": [
                {"experience_id": "exp-race", "action": {"component_name": "racer"}, "reward": 1.0}
            ],
        }
    )
    results = _send_concurrently(agent.token, body, THREADS)
    assert all(result[0] == 200 for result in results), results
    assert Experience.objects.filter(experience_id="exp-race").count() == 1
    assert ComponentStats.objects.get(component_name="racer").calls_total == 1


@pytest.mark.redis
async def test_a_broadcast_reaches_a_group_member_through_redis() -> None:
    layer = get_channel_layer()
    assert type(layer).__module__.startswith("channels_redis")
    channel = await layer.new_channel()
    await layer.group_add(dashboard_group("default"), channel)
    try:
        await sync_to_async(broadcast_now)(
            "test.ping", {"n": 1}, project="default", audience=Action.STATS
        )
        message = await asyncio.wait_for(layer.receive(channel), timeout=10)
    finally:
        await layer.group_discard(dashboard_group("default"), channel)
    assert message == {
        "type": "learn.event",
        "event": "test.ping",
        "payload": {"n": 1},
        "audience": "read stats",
        "project": "default",
    }
