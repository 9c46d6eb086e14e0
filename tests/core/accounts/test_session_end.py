"""A cookie socket ends with 4401 at once when its session does, idle or not: a logout (from
any thread or process, even one whose session store is slow), the session deleted (the admin,
SQL through the ORM), or swept once expired (`clearsessions`)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
from asgiref.sync import sync_to_async
from axes.models import AccessLog
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from core.accounts.credentials import PRINCIPAL_TTL
from core.accounts.models import User
from tests.builders import stats_req
from tests.harness import PASSWORD, WS_TIMEOUT, ws_communicator

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator

    from tests.harness import Actor

pytestmark = pytest.mark.django_db(transaction=True)

SOCKETS = ["/ws/learn/", "/ws/events/"]
# The events socket looks again every half TTL; the learn socket only when told.
AT_ONCE = 2 * PRINCIPAL_TTL


@sync_to_async
def logged_in(username: str) -> tuple[Client, str]:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client, client.cookies["sessionid"].value


async def cookie_socket(session_key: str, path: str) -> WebsocketCommunicator:
    headers = [(b"cookie", f"sessionid={session_key}".encode())]
    communicator = ws_communicator(headers=headers, path=path)
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    if path == "/ws/learn/":
        await communicator.send_json_to(stats_req())
        assert (await communicator.receive_json_from(timeout=WS_TIMEOUT))["type"].endswith("resp")
    return communicator


async def assert_closed_at_once(communicator: WebsocketCommunicator) -> None:
    while True:  # an events socket may say something first (its first counts)
        output = await communicator.receive_output(timeout=AT_ONCE)
        if output["type"] == "websocket.close":
            assert output["code"] == 4401
            return


@pytest.mark.parametrize("path", SOCKETS)
async def test_a_logout_from_another_thread_closes_an_idle_cookie_socket_at_once(
    ann: Actor, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    client, key = await logged_in("ann")
    communicator = await cookie_socket(key, path)
    delete = SessionStore.delete

    def slow_delete(self: SessionStore, session_key: str | None = None) -> None:
        time.sleep(0.3)  # a socket told of the logout meanwhile still finds the session
        delete(self, session_key)

    monkeypatch.setattr(SessionStore, "delete", slow_delete)
    # As another server thread (or process) would: not the consumer's own sync thread.
    await sync_to_async(client.post, thread_sensitive=False)("/logout/")
    await assert_closed_at_once(communicator)


@pytest.mark.parametrize("path", SOCKETS)
async def test_a_deleted_session_closes_its_idle_socket_at_once(ann: Actor, path: str) -> None:
    _, key = await logged_in("ann")
    communicator = await cookie_socket(key, path)
    await sync_to_async(Session.objects.filter(session_key=key).delete)()
    await assert_closed_at_once(communicator)


@pytest.mark.parametrize("path", SOCKETS)
async def test_an_expired_session_swept_by_clearsessions_closes_its_socket_at_once(
    ann: Actor, path: str
) -> None:
    _, key = await logged_in("ann")
    communicator = await cookie_socket(key, path)

    def expire_and_sweep() -> None:
        past = timezone.now() - timedelta(seconds=1)
        Session.objects.filter(session_key=key).update(expire_date=past)
        call_command("clearsessions")

    await sync_to_async(expire_and_sweep)()
    await assert_closed_at_once(communicator)


async def test_a_new_login_after_a_logout_opens_a_socket_that_is_answered(ann: Actor) -> None:
    client, _ = await logged_in("ann")
    await sync_to_async(client.post)("/logout/")
    _, again = await logged_in("ann")
    communicator = await cookie_socket(again, "/ws/learn/")  # answers a stats request
    await communicator.disconnect()


def test_django_axes_still_records_the_logout_in_its_access_log(ann: Actor) -> None:
    # axes reads the session's key when told of the logout, before this app flushes it.
    client = Client()
    assert client.post("/login/", {"username": "ann", "password": PASSWORD}).status_code == 302
    client.post("/logout/")
    (entry,) = AccessLog.objects.filter(username="ann")
    assert entry.logout_time is not None
