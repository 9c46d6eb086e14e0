"""`/ws/learn/`: the WebSocket adapter over the one dispatch path.

One JSON envelope a frame each way. Credentials are checked once at the handshake and the
token's revocation again every few seconds; the role is checked per frame by the services, as
over HTTP.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qs

import orjson
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import connection

from learnportal import dispatch
from learnportal.accounts.principals import (
    Principal,
    bearer_token,
    principal_for_token,
    principal_for_user,
    token_is_active,
)
from learnportal.protocol.errors import ErrorCode, LearnError

CLOSE_UNAUTHENTICATED = 4401
REVOCATION_CHECK_SECONDS = 5.0


def _scope_token(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            return bearer_token(value)
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    tokens = query.get("token")
    return tokens[0] if tokens else None


@database_sync_to_async
def authenticate_scope(scope: dict[str, Any]) -> Principal | None:
    raw = _scope_token(scope)
    if raw is not None:
        return principal_for_token(raw)
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return principal_for_user(user)
    return None


def _dispatch_keeping_connection(principal: Principal, frame: str | bytes) -> dispatch.Reply:
    """Answer one frame and keep the database connection for the next one.

    An HTTP request opens a connection and Django closes it when the request ends. A socket's
    frames come one after another on the consumers' one sync thread, and reconnecting (with
    SQLite's pragmas) for each would cost more than a small request itself.
    """
    reply = dispatch.dispatch(principal, frame)
    if reply.status == 503:
        connection.close()  # never keep a connection the database refused
    return reply


def _release_connection() -> None:
    connection.close()


class LearnConsumer(AsyncWebsocketConsumer):
    principal: Principal | None = None
    _checked_at = 0.0

    async def connect(self) -> None:
        self.principal = await authenticate_scope(self.scope)
        await self.accept()
        if self.principal is None:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self._checked_at = time.monotonic()

    async def disconnect(self, code: int) -> None:
        await sync_to_async(_release_connection, thread_sensitive=True)()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.principal is None:
            return
        if not await self._still_authorized():
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        frame = text_data if text_data is not None else bytes_data or b""
        if len(frame) > settings.LEARNPORTAL_MAX_BODY_BYTES:
            reply = dispatch.error_reply(
                LearnError(ErrorCode.TOO_LARGE, "The frame is over the size limit.")
            )
        else:
            reply = await sync_to_async(_dispatch_keeping_connection, thread_sensitive=True)(
                self.principal, frame
            )
        await self.send(text_data=orjson.dumps(reply.body).decode())

    async def _still_authorized(self) -> bool:
        token_id = self.principal.token_id if self.principal else None
        if token_id is None or time.monotonic() - self._checked_at < REVOCATION_CHECK_SECONDS:
            return True
        self._checked_at = time.monotonic()
        return await database_sync_to_async(token_is_active)(token_id)
