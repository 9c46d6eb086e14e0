"""`/ws/events/`: dashboards subscribe here to what the services broadcast after commit.

Read-only: the consumer authenticates, subscribes and forwards; writes never come in here.
Each event goes only to a subscriber whose principal, now, may read the same data over REST
(its `audience`, learnportal.events); a subscriber whose credential dies is closed with 4401
within a second. The channel layer (Redis, with several processes) may be down: the socket is
accepted all the same, told that live updates are paused, and resumes when the layer is back.

A slow browser is dropped, not waited for: what it is sent goes through a queue of its own of
SEND_QUEUE frames, written by a task of its own; when that queue is full the socket is closed
with 1013 (try again later) and its browser reconnects and reloads what it shows. Nothing it
does slows the flush (learnportal.events) or any other socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import orjson
from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer

from learnportal.accounts.credentials import (
    PRINCIPAL_TTL,
    Credential,
    credential_of_scope,
    principals,
)
from learnportal.accounts.roles import Action
from learnportal.events import DASHBOARD_GROUP, coalescer
from learnportal.ws.learn import CLOSE_UNAUTHENTICATED, principal_of

if TYPE_CHECKING:
    from learnportal.accounts.principals import Principal

logger = logging.getLogger(__name__)

RESUBSCRIBE_SECONDS = 2.0
SEND_QUEUE = 64
CLOSE_TOO_SLOW = 1013
AUDIENCES = frozenset(action.value for action in Action)
PAUSED = "live.paused"
RESUMED = "live.resumed"


class EventsConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels has no types
    # The consumer subscribes by itself (see _listen), so that a layer that is down pauses the
    # feed instead of failing the handshake.
    channel_layer_alias = None
    credential: Credential | None = None
    _tasks: tuple[asyncio.Task[None], ...] = ()
    _outbox: asyncio.Queue[str]

    async def connect(self) -> None:
        credential = credential_of_scope(self.scope)
        principal = await sync_to_async(principal_of, thread_sensitive=True)(credential)
        if principal is None:
            await self.accept()
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        # In the group before the browser sees the socket open, so that what it reloads on
        # opening and what it hears from then on leave no gap.
        joined = await _join()
        await self.accept()
        coalescer.attach(asyncio.get_running_loop())
        self.credential = credential
        self._outbox = asyncio.Queue(maxsize=SEND_QUEUE)
        self._tasks = (
            asyncio.create_task(self._listen(joined)),
            asyncio.create_task(self._watch_credential()),
            asyncio.create_task(self._write()),
        )

    async def disconnect(self, code: int) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _principal(self) -> Principal | None:
        if self.credential is None:
            return None
        if principals.is_fresh(self.credential):
            return principals.principal(self.credential)
        return await sync_to_async(principals.principal, thread_sensitive=True)(self.credential)

    async def _watch_credential(self) -> None:
        while await self._principal() is not None:
            await asyncio.sleep(PRINCIPAL_TTL / 2)
        await self._end()

    async def _end(self, code: int = CLOSE_UNAUTHENTICATED) -> None:
        if self.credential is None:
            return  # closed already
        self.credential = None
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        await self.close(code=code)

    async def _write(self) -> None:
        while True:
            await self.send(text_data=await self._outbox.get())

    async def _enqueue(self, frame: dict[str, Any]) -> None:
        try:
            self._outbox.put_nowait(orjson.dumps(frame).decode())
        except asyncio.QueueFull:
            logger.info("dropped a live socket that could not keep up")
            await self._end(CLOSE_TOO_SLOW)
            return
        # Receiving from a layer that has messages queued does not yield: let the writer take
        # each one, so that only a browser that stops reading fills its queue, not a burst.
        await asyncio.sleep(0)

    async def _listen(self, joined: str | None) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        paused = False
        while True:
            channel = ""
            try:
                if joined:
                    channel, joined = joined, None
                else:
                    channel = await layer.new_channel()
                    await layer.group_add(DASHBOARD_GROUP, channel)
                if paused:
                    await self._notice(RESUMED, "Live updates are back.")
                    paused = False
                while self.credential is not None:
                    await self._forward(await layer.receive(channel))
                await _leave(layer, channel)
                return
            except asyncio.CancelledError:
                if channel:
                    await _leave(layer, channel)
                raise
            except Exception as exc:
                if not paused:
                    logger.warning("live updates paused: the channel layer failed (%s)", exc)
                    await self._notice(PAUSED, "Live updates are paused; the page still works.")
                    paused = True
                await asyncio.sleep(RESUBSCRIBE_SECONDS)

    async def _forward(self, message: dict[str, Any]) -> None:
        principal = await self._principal()
        if principal is None:
            await self._end()
            return
        if message.get("audience") in AUDIENCES and principal.may(Action(message["audience"])):
            await self._enqueue({"event": message["event"], "payload": message["payload"]})

    async def _notice(self, event: str, message: str) -> None:
        await self._enqueue({"event": event, "payload": {"message": message}})


async def _join() -> str | None:
    """A channel in the group before the socket hears of any event, or None if the layer is
    down (then `_listen` pauses and retries)."""
    layer = get_channel_layer()
    if layer is None:
        return None
    try:
        channel: str = await layer.new_channel()
        await asyncio.wait_for(layer.group_add(DASHBOARD_GROUP, channel), RESUBSCRIBE_SECONDS)
    except Exception:
        return None
    return channel


async def _leave(layer: Any, channel: str) -> None:
    """Leave the group (an in-memory layer would queue for the channel until it expires)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(layer.group_discard(DASHBOARD_GROUP, channel), RESUBSCRIBE_SECONDS)
