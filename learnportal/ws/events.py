"""`/ws/events/`: dashboards subscribe here to what the services broadcast after commit.

Read-only: the consumer authenticates, joins the group and forwards; writes never come in here.
"""

from __future__ import annotations

from typing import Any

import orjson
from channels.generic.websocket import AsyncWebsocketConsumer

from learnportal.events import DASHBOARD_GROUP
from learnportal.ws.learn import CLOSE_UNAUTHENTICATED, authenticate_scope


class EventsConsumer(AsyncWebsocketConsumer):
    joined = False

    async def connect(self) -> None:
        principal = await authenticate_scope(self.scope)
        await self.accept()
        if principal is None:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.channel_layer.group_add(DASHBOARD_GROUP, self.channel_name)
        self.joined = True

    async def disconnect(self, code: int) -> None:
        if self.joined:
            await self.channel_layer.group_discard(DASHBOARD_GROUP, self.channel_name)

    async def learn_event(self, message: dict[str, Any]) -> None:
        payload = {"event": message["event"], "payload": message["payload"]}
        await self.send(text_data=orjson.dumps(payload).decode())
