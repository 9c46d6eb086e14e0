from __future__ import annotations

import orjson
import pytest
from channels.testing import WebsocketCommunicator

from learnportal.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


async def _events(raw_token: str | None) -> WebsocketCommunicator:
    headers = [(b"authorization", f"Bearer {raw_token}".encode())] if raw_token else []
    communicator = WebsocketCommunicator(application, "/ws/events/", headers=headers)
    await communicator.connect()
    return communicator


async def test_dashboard_hears_a_feedback_batch_after_it_commits(ann, agent):
    from asgiref.sync import sync_to_async

    listener = await _events(ann.raw_token)
    body = {
        "type": "learn/feedback/req",
        "feedbacks": [{"polarity": "positive", "component_name": "c"}],
    }
    response = await sync_to_async(agent.learn)(body)
    assert response.status_code == 200
    event = orjson.loads(await listener.receive_from(timeout=2))
    assert event["event"] == "feedback.recorded"
    assert event["payload"]["components"] == ["c"]
    await listener.disconnect()


async def test_refused_batch_broadcasts_nothing(ann, agent):
    from asgiref.sync import sync_to_async

    listener = await _events(ann.raw_token)
    spoofed = {
        "type": "learn/feedback/req",
        "feedbacks": [{"polarity": "positive", "source": "env"}],
    }
    response = await sync_to_async(agent.learn)(spoofed)
    assert response.status_code == 403
    assert await listener.receive_nothing(timeout=0.3)
    await listener.disconnect()


async def test_events_socket_without_credentials_is_closed_4401(db):
    communicator = WebsocketCommunicator(application, "/ws/events/")
    await communicator.connect()
    closed = await communicator.receive_output(timeout=2)
    assert closed == {"type": "websocket.close", "code": 4401}
