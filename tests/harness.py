"""One `send(actor, body)` for both transports, so that each behaviour is proved on the shared path.

Over WebSocket the status is the HTTP status of the error code (200 for a response), so that one
assertion reads the same on both. WebSocket tests use a transactional database: the consumer
reaches the database from another thread, outside the test's transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from learnportal.protocol.errors import HTTP_STATUS, ErrorCode
from tests.conftest import Actor

Body = dict[str, Any] | bytes | str
Send = Callable[[Actor, Body], tuple[int, dict[str, Any]]]

WS_TIMEOUT = 30


def _frame(body: Body) -> str:
    if isinstance(body, dict):
        return orjson.dumps(body).decode()
    return body.decode() if isinstance(body, bytes) else body


def ws_status(reply: dict[str, Any]) -> int:
    if reply.get("type") == "learn/error":
        return HTTP_STATUS[ErrorCode(reply["code"])]
    return 200


def ws_communicator(
    *, token: str | None = None, query: str = "", headers: list[tuple[bytes, bytes]] | None = None
) -> WebsocketCommunicator:
    from learnportal.asgi import application

    headers = list(headers or [])
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    path = "/ws/learn/" + (f"?{query}" if query else "")
    return WebsocketCommunicator(application, path, headers=headers)


async def ws_exchange(token: str, frames: list[Body]) -> list[dict[str, Any]]:
    """Open one connection, send every frame, then read as many replies, and close."""
    communicator = ws_communicator(token=token)
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    try:
        for frame in frames:
            await communicator.send_to(text_data=_frame(frame))
        return [await communicator.receive_json_from(timeout=WS_TIMEOUT) for _ in frames]
    finally:
        await communicator.disconnect()


def http_send(actor: Actor, body: Body) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else _frame(body).encode()
    response = actor.learn(data)
    return response.status_code, response.json()


def ws_send(actor: Actor, body: Body) -> tuple[int, dict[str, Any]]:
    assert actor.raw_token, "WebSocket actors authenticate with a token"
    (reply,) = async_to_sync(ws_exchange)(actor.raw_token, [body])
    return ws_status(reply), reply


@pytest.fixture(params=["http", pytest.param("ws", marks=pytest.mark.django_db(transaction=True))])
def transport(request: pytest.FixtureRequest) -> Send:
    return http_send if request.param == "http" else ws_send


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # The cast logs in with passwords; a slow hasher would dominate the suite's run time.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
