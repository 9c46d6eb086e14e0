"""`/ws/learn/`: the WebSocket adapter over the one dispatch path.

One JSON envelope a frame each way; replies carry their request's `req_id` and may be pipelined.
Frames are read ahead into a bounded queue while earlier ones are answered, and answered in
batches on the consumers' one sync thread, which keeps its database connection between frames:
a hop to that thread and back, and a connection per frame, would each cost more than a small
request itself.

The credential of the handshake is judged again on every frame, by the principal's state now
(accounts.credentials), and the socket watches it (core.accounts.watch): when a change to it is
committed (here or, with Redis, in another process) the socket looks again at once, and within the
principal cache's TTL for a change no signal tells of; if the credential was revoked, deactivated
or logged out, it is closed with 4401 whether or not a frame is in flight. A changed role applies
to the next frame.

The consumer uses no channel layer: serving requests must not depend on Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import orjson
from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import connection

from core.accounts.credentials import Credential, credential_of_scope, principals, usage
from core.accounts.watch import CredentialWatch
from core.ratelimit import refused_connection_wait
from learnportal import dispatch
from learnportal_protocol.errors import ErrorCode, LearnError

if TYPE_CHECKING:
    from typing import Any

    from core.accounts.principals import Principal

CLOSE_UNAUTHENTICATED = 4401
CLOSE_RATE_LIMITED = 4429  # a handshake without a valid credential, past its address's limit
CREDENTIAL_ENDED = "This connection's credential was revoked, deactivated or logged out."
PIPELINE_DEPTH = 256  # frames read ahead of their answers; past this, reading waits
BATCH_FRAMES = 64  # frames answered per hop to the database thread

Frame = str | bytes | dispatch.Reply  # a Reply: refused before it reached the sync thread


def principal_of(credential: Credential | None) -> Principal | None:
    return None if credential is None else principals.principal(credential)


def _answer(credential: Credential, frames: list[Frame]) -> tuple[list[dict[str, Any]], bool]:
    """Answer frames in order, each as the credential's principal now; False once it is dead
    (the frames after that one are not answered)."""
    replies: list[dict[str, Any]] = []
    seen = False
    for frame in frames:
        if isinstance(frame, dispatch.Reply):
            replies.append(frame.body)
            continue
        principal = principals.principal(credential)
        if principal is None:
            error = LearnError(ErrorCode.UNAUTHENTICATED, CREDENTIAL_ENDED)
            replies.append(dispatch.error_reply(error, dispatch.request_id(frame)).body)
            return replies, False
        if not seen:
            usage.seen(principal)
            seen = True
        reply = dispatch.dispatch(principal, frame)
        if reply.status == 503:
            connection.close()  # never keep a connection the database refused
        replies.append(reply.body)
    return replies, True


async def refused_close_code(scope: dict[str, Any]) -> int:
    """The close code of a handshake without a valid credential, counted under its address."""
    limited = await sync_to_async(refused_connection_wait)(scope) is not None
    return CLOSE_RATE_LIMITED if limited else CLOSE_UNAUTHENTICATED


def _release_connection() -> None:
    connection.close()


class LearnConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels has no types
    channel_layer_alias = None
    credential: Credential | None = None
    _frames: asyncio.Queue[Frame]
    _answering: asyncio.Task[None] | None = None
    _watch: CredentialWatch | None = None

    async def connect(self) -> None:
        credential = credential_of_scope(self.scope)
        principal = await sync_to_async(principal_of, thread_sensitive=True)(credential)
        await self.accept()
        if credential is None or principal is None:
            await self.close(code=await refused_close_code(self.scope))
            return
        self.credential = credential
        self._frames = asyncio.Queue(PIPELINE_DEPTH)
        self._watch = CredentialWatch(credential, principal, self._end)
        self._watch.start()
        self._answering = asyncio.create_task(self._answer_frames())

    async def disconnect(self, code: int) -> None:
        self.credential = None
        if self._watch is not None:
            await self._watch.stop()
        if self._answering is not None:
            self._answering.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._answering
        await sync_to_async(_release_connection, thread_sensitive=True)()

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels closes "old" database connections before every message: a hop to the sync
        # thread a frame, which waits there behind the batch being answered, so that no frame
        # would be read meanwhile. This consumer keeps its one connection between frames and
        # closes it itself: on disconnect and after an error the database answered.
        if message["type"] == "websocket.receive":
            await self.websocket_receive(message)
        else:
            await super().dispatch(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.credential is None:
            return
        data = text_data if text_data is not None else bytes_data or b""
        frame: Frame = data
        if len(data) > settings.LEARNPORTAL_MAX_BODY_BYTES:
            error = LearnError(ErrorCode.TOO_LARGE, "The frame is over the size limit.")
            frame = dispatch.error_reply(error)
        await self._frames.put(frame)

    async def _answer_frames(self) -> None:
        while True:
            batch = [await self._frames.get()]
            while len(batch) < BATCH_FRAMES and not self._frames.empty():
                batch.append(self._frames.get_nowait())
            credential = self.credential
            if credential is None:
                return
            replies, alive = await sync_to_async(_answer, thread_sensitive=True)(credential, batch)
            if self.credential is None:
                return  # ended while these were answered: the socket is closed
            for body in replies:
                await self.send(text_data=orjson.dumps(body).decode())
            if not alive:
                await self._end()
                return

    async def _end(self) -> None:
        if self.credential is None:
            return
        self.credential = None
        await self.close(code=CLOSE_UNAUTHENTICATED)
