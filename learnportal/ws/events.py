"""`/ws/events/`: dashboards subscribe here to what the services broadcast after commit.

Read-only: the consumer authenticates, subscribes and forwards; writes never come in here.
Each event goes only to a subscriber whose principal, now, may read the same data over REST
(its `audience`, learnportal.events); a subscriber whose credential dies is closed with 4401
within a second. The channel layer (Redis, with several processes) may be down: the socket is
accepted all the same, told that live updates are paused, and resumes when the layer is back.
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
from learnportal.events import DASHBOARD_GROUP
from learnportal.ws.learn import CLOSE_UNAUTHENTICATED, principal_of

if TYPE_CHECKING:
    from learnportal.accounts.principals import Principal

logger = logging.getLogger(__name__)

RESUBSCRIBE_SECONDS = 2.0
AUDIENCES = frozenset(action.value for action in Action)
PAUSED = "live.paused"
RESUMED = "live.resumed"


class EventsConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels has no types
    # The consumer subscribes by itself (see _listen), so that a layer that is down pauses the
    # feed instead of failing the handshake.
    channel_layer_alias = None
    credential: Credential | None = None
    _tasks: tuple[asyncio.Task[None], ...] = ()

    async def connect(self) -> None:
        credential = credential_of_scope(self.scope)
        principal = await sync_to_async(principal_of, thread_sensitive=True)(credential)
        await self.accept()
        if principal is None:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.credential = credential
        self._tasks = (
            asyncio.create_task(self._listen()),
            asyncio.create_task(self._watch_credential()),
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

    async def _end(self) -> None:
        self.credential = None
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def _listen(self) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        paused = False
        while True:
            try:
                channel = await layer.new_channel()
                await layer.group_add(DASHBOARD_GROUP, channel)
                if paused:
                    await self._notice(RESUMED, "Live updates are back.")
                    paused = False
                while True:
                    await self._forward(await layer.receive(channel))
            except asyncio.CancelledError:
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
            payload = {"event": message["event"], "payload": message["payload"]}
            await self.send(text_data=orjson.dumps(payload).decode())

    async def _notice(self, event: str, message: str) -> None:
        notice = {"event": event, "payload": {"message": message}}
        await self.send(text_data=orjson.dumps(notice).decode())
