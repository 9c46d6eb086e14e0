"""Redis (the channel layer) down: `/ws/learn/` serves as ever, `/ws/events/` pauses and resumes
(and subscribes again when its subscription is lost), and a broadcast gives up on a layer that
does not answer.

The layer points at a Redis of the test's own, not yet started, which is then started.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer

from core import events
from core.accounts.roles import Action
from core.events import broadcast_now
from tests.builders import stats_req
from tests.harness import WS_TIMEOUT, Actor, ws_communicator
from tests.processes import RedisServer

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def unstarted_redis(settings: Any) -> Iterator[RedisServer]:
    """The channel layer on a Redis of the test's own, not yet started."""
    server = RedisServer()
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [server.url]},
        }
    }
    yield server
    server.kill()


async def test_learn_sockets_serve_while_the_channel_layer_is_down(
    agent: Actor, unstarted_redis: RedisServer
) -> None:
    communicator = ws_communicator(token=agent.raw_token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    await communicator.send_json_to(stats_req(id="down"))
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert (reply["type"], reply["req_id"]) == ("learn/stats/resp", "down")
    await communicator.disconnect()


async def test_http_writes_succeed_while_the_channel_layer_is_down(
    agent: Actor, unstarted_redis: RedisServer
) -> None:
    body = {"type": "learn/feedback/req", "feedbacks": [{"polarity": "positive"}]}
    response = await sync_to_async(agent.learn)(body)
    assert response.status_code == 200, response.json()


@pytest.mark.redis_server
async def test_an_events_socket_pauses_while_the_layer_is_down_and_resumes(
    rev: Actor, unstarted_redis: RedisServer
) -> None:
    listener = ws_communicator(token=rev.raw_token, path="/ws/events/")
    connected, _ = await listener.connect(timeout=WS_TIMEOUT)
    assert connected
    paused = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert paused["event"] == "live.paused", paused
    await sync_to_async(unstarted_redis.start)()
    resumed = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert resumed["event"] == "live.resumed", resumed
    await sync_to_async(broadcast_now)(
        "test.ping", {"n": 1}, project="default", audience=Action.STATS
    )
    event = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert event == {"event": "test.ping", "payload": {"n": 1}}
    await listener.disconnect()


@pytest.mark.redis_server
async def test_an_open_events_socket_is_told_when_the_layer_goes_down_and_when_it_is_back(
    rev: Actor, unstarted_redis: RedisServer
) -> None:
    await sync_to_async(unstarted_redis.start)()
    listener = ws_communicator(token=rev.raw_token, path="/ws/events/")
    assert (await listener.connect(timeout=WS_TIMEOUT))[0]
    await sync_to_async(broadcast_now)(
        "test.ping", {"n": 1}, project="default", audience=Action.STATS
    )
    assert orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))["event"] == "test.ping"
    await sync_to_async(unstarted_redis.kill)()
    paused = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert paused["event"] == "live.paused", paused
    await sync_to_async(unstarted_redis.start)()
    resumed = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert resumed["event"] == "live.resumed", resumed
    await sync_to_async(broadcast_now)(
        "test.ping", {"n": 2}, project="default", audience=Action.STATS
    )
    event = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert event == {"event": "test.ping", "payload": {"n": 2}}
    await listener.disconnect()


class HangingLayer:
    """A channel layer whose sends never finish, as a Redis that accepts and never answers."""

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await asyncio.Event().wait()


async def test_a_flush_to_a_hanging_layer_gives_up_and_logs_the_outage_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(events, "SEND_SECONDS", 0.05)
    topics = [events.Topic("default", "test.ping", Action.STATS.value, {"n": 1})]
    with caplog.at_level(logging.WARNING, logger="core.events"):
        for _ in range(3):
            await asyncio.wait_for(events.flush(HangingLayer(), topics), WS_TIMEOUT)
    outages = [r for r in caplog.records if r.name == "core.events"]
    assert len(outages) == 1, outages
    assert "channel layer" in outages[0].getMessage()


class LayerThatLosesItsFirstChannel(InMemoryChannelLayer):  # type: ignore[misc]
    """Takes every message, but delivers none to the first channel it made: as a layer whose
    subscription was lost while it can still publish."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lost = ""

    async def new_channel(self, prefix: str = "specific.") -> str:
        channel: str = await super().new_channel(prefix)
        self.lost = self.lost or channel
        return channel

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        if channel != self.lost:
            await super().send(channel, message)


async def test_an_events_socket_whose_subscription_is_lost_subscribes_again(
    rev: Actor, settings: Any
) -> None:
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": f"{__name__}.{LayerThatLosesItsFirstChannel.__name__}"}
    }
    listener = ws_communicator(token=rev.raw_token, path="/ws/events/")
    assert (await listener.connect(timeout=WS_TIMEOUT))[0]
    paused = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert paused["event"] == "live.paused", paused
    resumed = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert resumed["event"] == "live.resumed", resumed
    await sync_to_async(broadcast_now)(
        "test.ping", {"n": 3}, project="default", audience=Action.STATS
    )
    event = orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT))
    assert event == {"event": "test.ping", "payload": {"n": 3}}
    await listener.disconnect()
