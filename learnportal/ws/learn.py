"""`/ws/learn/`: the WebSocket adapter over the one dispatch path.

One JSON envelope a frame each way. The credential of the handshake is judged again on every
frame, by the principal's state now (accounts.credentials: cached for at most a second, dropped
at once on a change saved here): a frame from a revoked, deactivated or logged-out credential is
refused and the socket closed with 4401; a changed role applies to the next frame.

The consumer uses no channel layer: serving requests must not depend on Redis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import connection

from learnportal import dispatch
from learnportal.accounts.credentials import Credential, credential_of_scope, principals
from learnportal.protocol.errors import ErrorCode, LearnError

if TYPE_CHECKING:
    from learnportal.accounts.principals import Principal

CLOSE_UNAUTHENTICATED = 4401
CREDENTIAL_ENDED = "This connection's credential was revoked, deactivated or logged out."


def principal_of(credential: Credential | None) -> Principal | None:
    return None if credential is None else principals.principal(credential)


def _answer(credential: Credential, frame: str | bytes) -> tuple[dispatch.Reply, bool]:
    """Answer one frame as the credential's principal now; False once the credential is dead.

    Runs on the consumers' one sync thread, which keeps its database connection between frames:
    reconnecting (with SQLite's pragmas) for each would cost more than a small request itself.
    """
    principal = principals.principal(credential)
    if principal is None:
        error = LearnError(ErrorCode.UNAUTHENTICATED, CREDENTIAL_ENDED)
        return dispatch.error_reply(error, dispatch.request_id(frame)), False
    reply = dispatch.dispatch(principal, frame)
    if reply.status == 503:
        connection.close()  # never keep a connection the database refused
    return reply, True


def _release_connection() -> None:
    connection.close()


class LearnConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels has no types
    channel_layer_alias = None
    credential: Credential | None = None

    async def connect(self) -> None:
        credential = credential_of_scope(self.scope)
        principal = await sync_to_async(principal_of, thread_sensitive=True)(credential)
        await self.accept()
        if principal is None:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.credential = credential

    async def disconnect(self, code: int) -> None:
        await sync_to_async(_release_connection, thread_sensitive=True)()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.credential is None:
            return
        frame = text_data if text_data is not None else bytes_data or b""
        alive = True
        if len(frame) > settings.LEARNPORTAL_MAX_BODY_BYTES:
            error = LearnError(ErrorCode.TOO_LARGE, "The frame is over the size limit.")
            reply = dispatch.error_reply(error)
        else:
            reply, alive = await sync_to_async(_answer, thread_sensitive=True)(
                self.credential, frame
            )
        await self.send(text_data=orjson.dumps(reply.body).decode())
        if not alive:
            self.credential = None
            await self.close(code=CLOSE_UNAUTHENTICATED)
