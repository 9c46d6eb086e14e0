"""Dashboards hear of an apply once it commits, and of a refused one never."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import orjson
import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from core.events import dashboard_group
from tests.builders import apply_req, weight_proposal
from tests.harness import Actor, ws_exchange, ws_status

pytestmark = pytest.mark.django_db(transaction=True)


async def send(transport: str, actor: Actor, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    if transport == "ws":
        (reply,) = await ws_exchange(actor.raw_token, [body])
        return ws_status(reply), reply
    response = await sync_to_async(actor.learn)(orjson.dumps(body))
    return response.status_code, response.json()


async def mine(layer: Any, channel: str, marker: str, timeout: float) -> dict[str, Any] | None:
    """The first message mentioning `marker`; others (another test run on a shared Redis) pass."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (left := deadline - loop.time()) > 0:
        try:
            message = await asyncio.wait_for(layer.receive(channel), timeout=left)
        except TimeoutError:
            return None
        if marker in orjson.dumps(message).decode():
            return message
    return None


async def listening() -> tuple[Any, str]:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(dashboard_group("default"), channel)
    return layer, channel


@pytest.mark.parametrize("via", ["http", "ws"])
async def test_an_applied_refinement_reaches_the_dashboard_group(via: str, agent: Actor) -> None:
    layer, channel = await listening()
    try:
        component = f"c-{uuid.uuid4().hex}"
        status, body = await send(via, agent, apply_req(weight_proposal(component, 0.5, 0.55)))
        assert status == 200 and body["applied_edits"] == 1, body
        message = await mine(layer, channel, body["refinement_id"], timeout=5)
        assert message is not None
        assert message["type"] == "learn.event"
        assert message["event"] == "refinement.apply"
        assert message["payload"]["refinement_id"] == body["refinement_id"]
        assert message["payload"]["actor"] == "token:agent-1"
    finally:
        await layer.group_discard(dashboard_group("default"), channel)


@pytest.mark.parametrize("via", ["http", "ws"])
async def test_a_refused_apply_broadcasts_nothing(via: str, agent: Actor) -> None:
    layer, channel = await listening()
    try:
        component = f"c-{uuid.uuid4().hex}"
        status, body = await send(via, agent, apply_req(weight_proposal(component, 0.4, 0.45)))
        assert status == 409, body
        assert await mine(layer, channel, component, timeout=0.5) is None
    finally:
        await layer.group_discard(dashboard_group("default"), channel)
