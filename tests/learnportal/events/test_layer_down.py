"""Redis (the channel layer) down: `/ws/learn/` serves as ever, `/ws/events/` pauses and resumes.

The layer points at a Redis of the test's own on a port nobody serves, then one is started there.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from asgiref.sync import sync_to_async

from learnportal.accounts.roles import Action
from learnportal.events import broadcast_now
from tests.builders import stats_req
from tests.harness import WS_TIMEOUT, Actor, ws_communicator

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

pytestmark = pytest.mark.django_db(transaction=True)

REDIS_SERVER = ["redis-server", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def redis_port(settings: Any) -> int:
    port = free_port()
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{port}/0"]},
        }
    }
    return port


@pytest.fixture
def start_redis(redis_port: int) -> Iterator[Callable[[], None]]:
    if not shutil.which("redis-server"):
        pytest.skip("needs redis-server")
    servers: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        servers.append(
            subprocess.Popen(
                [*REDIS_SERVER, "--port", str(redis_port)],
                stdout=subprocess.DEVNULL,
            )
        )

    yield start
    for server in servers:
        server.kill()
        server.wait()


async def test_learn_sockets_serve_while_the_channel_layer_is_down(
    agent: Actor, redis_port: int
) -> None:
    communicator = ws_communicator(token=agent.raw_token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    await communicator.send_json_to(stats_req(id="down"))
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert (reply["type"], reply["req_id"]) == ("learn/stats/resp", "down")
    await communicator.disconnect()


async def test_http_writes_succeed_while_the_channel_layer_is_down(
    agent: Actor, redis_port: int
) -> None:
    body = {"type": "learn/feedback/req", "feedbacks": [{"polarity": "positive"}]}
    response = await sync_to_async(agent.learn)(body)
    assert response.status_code == 200, response.json()


@pytest.mark.redis
async def test_an_events_socket_pauses_while_the_layer_is_down_and_resumes(
    rev: Actor, start_redis: Callable[[], None]
) -> None:
    listener = ws_communicator(token=rev.raw_token, path="/ws/events/")
    connected, _ = await listener.connect(timeout=WS_TIMEOUT)
    assert connected
    paused = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert paused["event"] == "live.paused", paused
    start_redis()
    resumed = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert resumed["event"] == "live.resumed", resumed
    await sync_to_async(broadcast_now)("test.ping", {"n": 1}, audience=Action.STATS)
    event = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert event == {"event": "test.ping", "payload": {"n": 1}}
    await listener.disconnect()
