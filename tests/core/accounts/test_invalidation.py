"""A change saved in one process reaches every other's principal cache and open sockets at once.

With REDIS_URL set each process listens on one pub/sub channel (accounts.invalidation); here the
other process is a plain Redis client publishing what a server's signal would. The two-process
end-to-end test is tests/learnportal/test_processes.py.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import redis
from asgiref.sync import sync_to_async
from django.conf import settings

from core.accounts import invalidation
from core.accounts.credentials import Credential, principals
from core.accounts.models import ApiToken, hash_token
from tests.builders import stats_req
from tests.harness import WS_TIMEOUT, Actor, ws_communicator


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def drop(self, *, user_id: int | None = None, token_id: int | None = None) -> None:
        self.calls.append(("drop", (user_id, token_id)))

    def drop_session_hash(self, session_hash: str) -> None:
        self.calls.append(("session", session_hash))

    def clear(self) -> None:
        self.calls.append(("clear", None))


@pytest.mark.parametrize(
    ("message", "call"),
    [
        (b"token:7", ("drop", (None, 7))),
        (b"user:3", ("drop", (3, None))),
        (b"session:abc", ("session", "abc")),
        (b"nonsense", ("clear", None)),  # what it cannot read, it treats as "forget all"
        (b"token:x", ("clear", None)),
    ],
)
def test_a_published_message_drops_what_it_names(message: bytes, call: tuple[str, Any]) -> None:
    recorder = Recorder()
    invalidation.apply(recorder, message)
    assert recorder.calls == [call]


def publish_from_another_process(message: str) -> None:
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.publish(invalidation.channel_name(), message)
    client.close()


def until(condition: Any, within: float = 1.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return bool(condition())


@pytest.mark.redis
def test_a_revocation_published_elsewhere_drops_the_cached_principal_within_a_second(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(principals, "clock", lambda: 1000.0)  # the TTL never runs out here
    credential = Credential("token", hash_token(agent.token))
    assert principals.principal(credential) is not None and principals.is_fresh(credential)
    assert invalidation.linked()
    token = ApiToken.objects.get(name="agent-1")
    publish_from_another_process(f"token:{token.pk}")
    assert until(lambda: not principals.is_fresh(credential))


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
async def test_a_revocation_in_another_process_closes_an_open_socket_here(agent: Actor) -> None:
    communicator = ws_communicator(token=agent.raw_token)
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    await communicator.send_json_to(stats_req())
    assert (await communicator.receive_json_from(timeout=WS_TIMEOUT))["type"] == "learn/stats/resp"

    # The other process revokes: its row is committed, then it publishes.
    @sync_to_async
    def revoke_elsewhere() -> None:
        token = ApiToken.objects.get(name="agent-1")
        ApiToken.objects.filter(pk=token.pk).update(revoked_at=token.created_at)  # no signal here
        publish_from_another_process(f"token:{token.pk}")

    await revoke_elsewhere()
    closed = await asyncio.wait_for(communicator.receive_output(), timeout=1.0)
    assert closed == {"type": "websocket.close", "code": 4401}
