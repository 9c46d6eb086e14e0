"""Redis killed under a running server: no 500, no silence, and everything back without a restart.

The server is a uvicorn process of its own (tests/processes.py) whose REDIS_URL, and so its
cache, channel layer, principal invalidation and A2E session store, is a redis-server of the
test's own; the test kills that Redis mid-test and starts it again on the same port. Writes that
need no Redis are served all along; the A2E transport, whose sessions live in Redis, answers
`unavailable`; an open `/ws/learn/` socket keeps answering; an open `/ws/events/` socket is told
`live.paused`, then `live.resumed` and hears events again.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pytest
import redis
import websockets

from core.outage import RETRY_SECONDS
from feedback.models import Feedback
from tests.builders import (
    adapt_req,
    apply_req,
    feedback,
    feedback_req,
    plan_req,
    stats_req,
    weight_proposal,
)
from tests.processes import clean_env, database_url, serve, stop
from webhooks.outbox import SUBSCRIPTIONS_KEY

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.harness import Actor
    from tests.processes import RedisServer

pytestmark = [pytest.mark.redis_server, pytest.mark.django_db(transaction=True)]

WAIT = 20.0  # seconds for a socket to hear what it must hear


@pytest.fixture
def portal(redis_server: RedisServer, tmp_path: Path) -> Iterator[str]:
    env = clean_env(
        tmp_path,
        DJANGO_DEBUG="1",
        DATABASE_URL=database_url(),
        REDIS_URL=redis_server.url,
        LEARNPORTAL_LOG_LEVEL="ERROR",
    )
    url, process = serve(env, tmp_path / "server.log")
    yield url
    stop(process)


def writes(phase: str) -> list[dict[str, Any]]:
    """Feedback, adapt, plan and apply: each phase applies a weight of a component never weighted."""
    return [
        feedback_req(feedback(source="self", component_name=f"c-{phase}")),
        adapt_req("ucb1"),
        plan_req(),
        apply_req(weight_proposal(f"unweighted-{phase}", 0.5, 0.55)),
    ]


def cached_subscriptions(redis_server: RedisServer) -> bool:
    """Whether the webhook outbox keeps its subscriptions in Redis again (Django's key `:1:`)."""
    return bool(redis.Redis.from_url(redis_server.url).exists(f":1:{SUBSCRIPTIONS_KEY}"))


def test_writes_over_http_are_served_while_redis_is_down_and_after_it_is_back(
    portal: str, redis_server: RedisServer, agent: Actor
) -> None:
    headers = {"Authorization": f"Bearer {agent.token}"}
    with httpx.Client(base_url=portal, headers=headers, timeout=30) as client:
        for phase in ("up", "down", "back"):
            if phase == "down":
                redis_server.kill()
            elif phase == "back":
                redis_server.start()
            for body in writes(phase):
                response = client.post("/api/learn/", json=body)
                assert response.status_code == 200, (phase, body["type"], response.text)
                assert response.json()["req_id"] == body["id"]
            # The A2E transport keeps its sessions in Redis: that one truly needs it.
            session = client.post("/a2e/session")
            if phase == "down":
                assert session.status_code == 503, session.text
                assert session.json()["code"] == "unavailable"
            else:
                assert session.status_code == 200, session.text
        assert Feedback.objects.count() == 3
        # The cache is used again, without a restart, once the outage's retry comes round.
        deadline = time.monotonic() + RETRY_SECONDS + WAIT
        while not cached_subscriptions(redis_server) and time.monotonic() < deadline:
            assert (
                client.post("/api/learn/", json=feedback_req(feedback(source="self"))).status_code
                == 200
            )
            time.sleep(0.2)
    assert cached_subscriptions(redis_server)


def test_a2e_answers_unavailable_with_a_wait_while_redis_is_down_and_serves_when_back(
    portal: str, redis_server: RedisServer, agent: Actor
) -> None:
    bearer = {"Authorization": f"Bearer {agent.token}"}
    with httpx.Client(base_url=f"{portal}/a2e", headers=bearer, timeout=30) as client:
        opened = client.post("/session").json()["session_id"]
        redis_server.kill()
        of_session = {"X-Session-Id": opened}
        for response in (
            client.post("/session"),
            client.post("/send", content=b'{"type": "ping"}', headers=of_session),
            client.get("/stream", headers=of_session),
        ):
            assert response.status_code == 503, (response.request.url, response.text)
            assert response.json()["code"] == "unavailable"
            assert int(response.headers["Retry-After"]) >= 1
        redis_server.start()
        fresh = {"X-Session-Id": client.post("/session").json()["session_id"]}
        with client.stream("GET", "/stream", headers=fresh) as stream:
            assert stream.status_code == 200
            assert client.post("/send", content=b'{"type": "ping"}', headers=fresh).json() == {
                "ok": True
            }


async def ws_reply(socket: Any, body: dict[str, Any]) -> dict[str, Any]:
    await socket.send(orjson.dumps(body).decode())
    reply: dict[str, Any] = orjson.loads(await asyncio.wait_for(socket.recv(), WAIT))
    return reply


def test_a_learn_socket_answers_while_redis_is_down_and_after_it_is_back(
    portal: str, redis_server: RedisServer, agent: Actor
) -> None:
    async def talk() -> list[str]:
        url = portal.replace("http://", "ws://") + "/ws/learn/"
        headers = {"Authorization": f"Bearer {agent.token}"}
        answered = []
        async with websockets.connect(url, additional_headers=headers) as socket:
            for phase in ("up", "down", "back"):
                if phase == "down":
                    await asyncio.to_thread(redis_server.kill)
                elif phase == "back":
                    await asyncio.to_thread(redis_server.start)
                for body in [*writes(phase), stats_req()]:
                    reply = await ws_reply(socket, body)
                    assert reply["req_id"] == body["id"], (phase, reply)
                    answered.append(reply["type"])
        return answered

    answered = asyncio.run(talk())
    assert "learn/error" not in answered, answered
    assert len(answered) == 15


async def next_event(socket: Any, wanted: str) -> list[str]:
    """The events heard until `wanted`, which must come within WAIT seconds."""
    heard: list[str] = []
    deadline = time.monotonic() + WAIT
    while wanted not in heard:
        frame = await asyncio.wait_for(socket.recv(), max(0.0, deadline - time.monotonic()))
        heard.append(orjson.loads(frame)["event"])
    return heard


def test_an_open_events_socket_is_told_live_paused_and_resumes_when_redis_is_back(
    portal: str, redis_server: RedisServer, agent: Actor
) -> None:
    headers = {"Authorization": f"Bearer {agent.token}"}

    def write(phase: str) -> None:
        body = feedback_req(feedback(source="self", component_name=f"c-{phase}"))
        response = httpx.post(f"{portal}/api/learn/", json=body, headers=headers, timeout=30)
        assert response.status_code == 200, response.text

    async def watch() -> list[list[str]]:
        url = portal.replace("http://", "ws://") + "/ws/events/"
        async with websockets.connect(url, additional_headers=headers) as socket:
            await asyncio.to_thread(write, "up")
            live = await next_event(socket, "feedback.recorded")
            await asyncio.to_thread(redis_server.kill)
            paused = await next_event(socket, "live.paused")
            await asyncio.to_thread(write, "down")  # served, though no dashboard hears of it
            await asyncio.to_thread(redis_server.start)
            resumed = await next_event(socket, "live.resumed")
            await asyncio.to_thread(write, "back")
            again = await next_event(socket, "feedback.recorded")
        return [live, paused, resumed, again]

    live, paused, resumed, again = asyncio.run(watch())
    assert "live.paused" not in live
    assert paused[-1] == "live.paused"
    assert "live.paused" not in resumed[:-1]
    assert again[-1] == "feedback.recorded"
