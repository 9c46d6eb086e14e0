from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
import pytest

from tests.harness import Actor, ws_communicator

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator

pytestmark = pytest.mark.django_db(transaction=True)


async def _events(raw_token: str | None) -> WebsocketCommunicator:
    communicator = ws_communicator(token=raw_token or None, path="/ws/events/")
    await communicator.connect()
    return communicator


async def test_dashboard_hears_a_feedback_batch_after_it_commits(ann: Actor, agent: Actor) -> None:
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


async def test_refused_batch_broadcasts_nothing(ann: Actor, agent: Actor) -> None:
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


async def test_events_socket_without_credentials_is_closed_4401(db: None) -> None:
    communicator = ws_communicator(path="/ws/events/")
    await communicator.connect()
    closed = await communicator.receive_output(timeout=2)
    assert closed == {"type": "websocket.close", "code": 4401}


async def _session_events(username: str) -> WebsocketCommunicator:
    from asgiref.sync import sync_to_async
    from django.test import Client

    from core.accounts.models import User

    def log_in() -> str:
        client = Client()
        client.force_login(User.objects.get(username=username))
        return client.cookies["sessionid"].value

    cookie = await sync_to_async(log_in)()
    headers = [(b"cookie", f"sessionid={cookie}".encode())]
    communicator = ws_communicator(headers=headers, path="/ws/events/")
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def _review(agent: Actor) -> None:
    from asgiref.sync import sync_to_async

    proposal = {
        "target": "router_weight",
        "op": "update",
        "path": "router.weights.c",
        "old_value": 0.5,
        "new_value": 0.55,
    }
    response = await sync_to_async(agent.learn)(
        {"type": "learn/refinement/review/req", "proposal": proposal}
    )
    assert response.status_code == 200, response.json()


async def test_an_annotator_hears_no_refinement_history(
    ann: Actor, rev: Actor, agent: Actor
) -> None:
    annotator, reviewer = await _session_events("ann"), await _session_events("rev")
    await _review(agent)
    event = orjson.loads(await reviewer.receive_from(timeout=2))
    assert event["event"] == "refinement.review" and "message" in event["payload"]
    assert await annotator.receive_nothing(timeout=0.3)
    await annotator.disconnect()
    await reviewer.disconnect()


async def test_a_promoted_annotator_hears_history_from_then_on(ann: Actor, agent: Actor) -> None:
    from asgiref.sync import sync_to_async

    from core.accounts.models import User
    from core.projects.services import default_project, member_set

    listener = await _session_events("ann")
    await _review(agent)
    assert await listener.receive_nothing(timeout=0.3)
    user = await sync_to_async(User.objects.get)(username="ann")
    await sync_to_async(member_set)(
        project=await sync_to_async(default_project)(), person=user, role="reviewer"
    )
    await _review(agent)
    event = orjson.loads(await listener.receive_from(timeout=2))
    assert event["event"] == "refinement.review"
    await listener.disconnect()


async def test_an_events_socket_is_closed_4401_soon_after_its_token_is_revoked(ann: Actor) -> None:
    from asgiref.sync import sync_to_async
    from django.core.management import call_command

    listener = await _events(ann.raw_token)
    await sync_to_async(call_command)("revoketoken", "ann-personal")
    closed = await listener.receive_output(timeout=2)  # the watcher looks twice a second
    assert closed == {"type": "websocket.close", "code": 4401}


async def test_an_events_socket_is_closed_4401_when_its_person_is_deactivated(rev: Actor) -> None:
    from asgiref.sync import sync_to_async

    from core.accounts.models import User

    listener = await _session_events("rev")
    await sync_to_async(User.objects.filter(username="rev").update)(is_active=False)
    # Behind the host's back (no signal): the cache lets it through for at most its TTL.
    closed = await listener.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4401}
