"""Open sockets are judged by the principal's state now, not at the handshake.

A change saved through the portal, the admin or a command closes a socket of a dead credential
with 4401 at once, idle or not, and a changed role applies to the next frame; a change made
behind the host's back (SQL, another process without Redis) counts within the principal cache's
TTL: an idle socket is closed (core.accounts.watch looks again), and a frame from a credential
found dead is refused with `unauthenticated` and the socket closed. Seen as an attacker holding the socket: nothing they send after the change is done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from core.accounts import credentials, invalidation, watch
from core.accounts.credentials import principals
from core.accounts.models import ApiToken, User
from core.projects.services import default_project, member_set
from feedback.models import Experience, Feedback
from tests.builders import experience, experience_req, feedback, feedback_req, stats_req
from tests.harness import WS_TIMEOUT, Actor, ws_communicator

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator

    from core.accounts.credentials import Credential
    from core.accounts.principals import Principal

pytestmark = pytest.mark.django_db(transaction=True)


async def opened(communicator: WebsocketCommunicator) -> WebsocketCommunicator:
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    return communicator


async def ask(communicator: WebsocketCommunicator, body: dict[str, Any]) -> dict[str, Any]:
    await communicator.send_json_to(body)
    return await communicator.receive_json_from(timeout=WS_TIMEOUT)


async def assert_refused_then_closed(
    communicator: WebsocketCommunicator, body: dict[str, Any]
) -> None:
    reply = await ask(communicator, body)
    assert (reply["type"], reply["code"], reply["req_id"]) == (
        "learn/error",
        "unauthenticated",
        body["id"],
    ), reply
    assert await communicator.receive_output(timeout=WS_TIMEOUT) == {
        "type": "websocket.close",
        "code": 4401,
    }


@sync_to_async
def save_user(username: str, **fields: Any) -> None:
    user = User.objects.get(username=username)
    for name, value in fields.items():
        setattr(user, name, value)
    user.save()


async def assert_closed_at_once(communicator: WebsocketCommunicator) -> None:
    """The socket is closed with 4401 without the client sending anything more."""
    assert await communicator.receive_output(timeout=WS_TIMEOUT) == {
        "type": "websocket.close",
        "code": 4401,
    }


async def test_revoketoken_closes_an_idle_socket_at_once(agent: Actor) -> None:
    communicator = await opened(ws_communicator(token=agent.raw_token))
    assert (await ask(communicator, stats_req()))["type"] == "learn/stats/resp"
    await sync_to_async(call_command)("revoketoken", "agent-1")
    await assert_closed_at_once(communicator)
    await communicator.send_json_to(experience_req(experience("c")))
    assert await communicator.receive_nothing(timeout=0.2)
    assert await database_sync_to_async(Experience.objects.count)() == 0


async def test_frames_queued_behind_a_revocation_are_not_done(agent: Actor) -> None:
    # An attacker pipelines writes and the token is revoked while they are in flight: whatever
    # was answered before the revocation committed, nothing after it is stored.
    communicator = await opened(ws_communicator(token=agent.raw_token))
    assert (await ask(communicator, stats_req()))["type"] == "learn/stats/resp"
    await sync_to_async(call_command)("revoketoken", "agent-1")
    for n in range(50):
        await communicator.send_json_to(experience_req(experience("c"), id=f"late-{n}"))
    await assert_closed_at_once(communicator)
    assert await database_sync_to_async(Experience.objects.count)() == 0


async def test_a_deactivated_person_keeps_no_power_on_an_open_socket(boss: Actor) -> None:
    communicator = await opened(ws_communicator(token=boss.raw_token))
    assert (await ask(communicator, experience_req(experience("c"))))["stored"] == 1
    await save_user("boss", is_active=False)
    await assert_closed_at_once(communicator)
    assert await database_sync_to_async(Experience.objects.count)() == 1


async def test_a_demoted_person_is_judged_by_the_new_role_on_the_next_frame(boss: Actor) -> None:
    communicator = await opened(ws_communicator(token=boss.raw_token))
    assert (await ask(communicator, experience_req(experience("c"))))["stored"] == 1
    await save_user("boss", is_superuser=False, is_staff=False)
    await database_sync_to_async(member_set)(
        project=await database_sync_to_async(default_project)(),
        person=await database_sync_to_async(User.objects.get)(username="boss"),
        role="annotator",
    )
    reply = await ask(communicator, experience_req(experience("c")))
    assert (reply["type"], reply["code"]) == ("learn/error", "forbidden"), reply
    assert (await ask(communicator, stats_req()))["type"] == "learn/stats/resp"  # still open
    await communicator.disconnect()


async def test_a_session_socket_ends_when_its_person_logs_out(ann: Actor) -> None:
    client = Client()

    def log_in() -> str:
        client.force_login(User.objects.get(username="ann"))
        return client.cookies["sessionid"].value

    cookie = await sync_to_async(log_in)()
    headers = [(b"cookie", f"sessionid={cookie}".encode())]
    communicator = await opened(ws_communicator(headers=headers))
    assert (await ask(communicator, feedback_req(feedback())))["recorded"] == 1
    await sync_to_async(client.post)("/logout/")
    await assert_closed_at_once(communicator)
    assert await database_sync_to_async(Feedback.objects.count)() == 1


async def test_an_idle_socket_is_closed_within_the_ttl_of_a_change_behind_the_hosts_back(
    agent: Actor,
) -> None:
    communicator = await opened(ws_communicator(token=agent.raw_token))
    assert (await ask(communicator, stats_req()))["type"] == "learn/stats/resp"
    # As another process or a script would: no signal reaches this process.
    await database_sync_to_async(ApiToken.objects.filter(name="agent-1").update)(
        revoked_at=timezone.now()
    )
    closed = await communicator.receive_output(timeout=2 * principals.ttl + watch.POLL_SECONDS)
    assert closed == {"type": "websocket.close", "code": 4401}


async def test_a_frame_after_a_change_behind_the_hosts_back_is_refused_within_the_ttl(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The frame, not the watch, finds the credential dead: the watch looks only when told.
    monkeypatch.setattr(watch, "POLL_SECONDS", 3600.0)
    # Nor a message: with Redis, another test process's change of its own token of this id
    # would drop this one's cached principal early (the channel is one a Redis database).
    monkeypatch.setattr(invalidation, "apply", lambda cache, data: None)
    now = [1000.0]
    monkeypatch.setattr(principals, "clock", lambda: now[0])
    communicator = await opened(ws_communicator(token=agent.raw_token))
    # As another process or a script would: no signal reaches this process.
    await database_sync_to_async(ApiToken.objects.filter(name="agent-1").update)(
        revoked_at=timezone.now()
    )
    reply = await ask(communicator, stats_req())
    assert reply["type"] == "learn/stats/resp", reply
    now[0] += principals.ttl
    await assert_refused_then_closed(communicator, stats_req())


async def test_frames_within_the_ttl_ask_the_database_nothing_about_the_principal(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups: list[Credential] = []
    resolve = credentials.resolve

    def counted(credential: Credential) -> Principal | None:
        lookups.append(credential)
        return resolve(credential)

    monkeypatch.setattr(credentials, "resolve", counted)
    monkeypatch.setattr(principals, "clock", lambda: 1000.0)
    communicator = await opened(ws_communicator(token=agent.raw_token))
    for _ in range(20):
        assert (await ask(communicator, stats_req()))["type"] == "learn/stats/resp"
    await communicator.disconnect()
    assert len(lookups) == 1  # the handshake's


def test_the_principal_cache_sweeps_expired_entries_when_full(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [0.0]
    cache = credentials.PrincipalCache(clock=lambda: now[0])
    monkeypatch.setattr(credentials, "MAX_ENTRIES", 3)
    for n in range(3):
        cache.principal(credentials.Credential("token", f"unknown-{n}"))
    now[0] += cache.ttl
    live = credentials.Credential("token", "unknown-live")
    cache.principal(live)
    assert len(cache) == 1 and cache.is_fresh(live)
