"""The A2E transport driven in-process through Channels' HttpCommunicator, without a server.

`a2e_send(actor, body) -> (status, reply)` reads like tests.harness.http_send and ws_send: one
session (handshake with the actor's token, the body, shutdown), whose stream then ends after
writing the replies; the status is the HTTP status of an error's code (200 for a response).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator

from learnportal_protocol.errors import HTTP_STATUS, ErrorCode
from tests.learnportal.a2e.client import handshake, message

if TYPE_CHECKING:
    from tests.harness import Actor, Body

TIMEOUT = 30


async def request(
    method: str, path: str, body: bytes = b"", session_id: str = ""
) -> dict[str, Any]:
    from learnportal.asgi import application

    headers = [(b"host", b"testserver")]
    if session_id:
        headers.append((b"x-session-id", session_id.encode()))
    communicator = HttpCommunicator(application, method, path, body=body, headers=headers)
    response: dict[str, Any] = await communicator.get_response(timeout=TIMEOUT)
    return response


async def a2e_exchange(token: str, bodies: list[bytes]) -> list[dict[str, Any]]:
    """Every message the stream of a session that sent `bodies` after its handshake writes."""
    opened = await request("POST", "/a2e/session")
    session_id = orjson.loads(opened["body"])["session_id"]
    for body in [orjson.dumps(handshake(token)), *bodies, orjson.dumps(message("shutdown"))]:
        sent = await request("POST", "/a2e/send", body, session_id)
        assert sent["status"] == 200, sent
    stream = await request("GET", "/a2e/stream", session_id=session_id)
    events = [line for line in stream["body"].split(b"\n") if line.startswith(b"data: ")]
    return [orjson.loads(line.removeprefix(b"data: ")) for line in events]


def a2e_send(actor: Actor, body: Body) -> tuple[int, dict[str, Any]]:
    if isinstance(body, dict):
        data = orjson.dumps(body)
    else:
        data = body if isinstance(body, bytes) else body.encode()
    shook, reply = async_to_sync(a2e_exchange)(actor.token, [data])
    assert shook["ok"] is True, shook
    if reply["type"] == "error":
        return HTTP_STATUS[ErrorCode(reply["code"])], reply
    return 200, reply
