"""`/ws/events/`: dashboards subscribe here to what the services broadcast after commit.

Read-only: the consumer authenticates, subscribes and forwards; writes never come in here.
A socket acts in one project, as a REST request does (core.projects.selection): its principal's
own, or the one `?project=` names on the socket's URL; it subscribes to that project's group
(core.events.dashboard_group) and so hears only that project's events and totals. A project
the principal may not enter closes the socket with 4404, exactly as one that does not exist.
Each event goes only to a subscriber whose principal, now, may read the same data over REST
(its `audience`, core.events); a subscriber whose credential dies is closed with 4401, at once
or (for a change no signal tells of) within a second (core.accounts.watch). The channel layer (Redis, with several processes) may be down, at the handshake
or at any time after: the socket is accepted all the same, told `live.paused` within a few
seconds (it probes the layer each PROBE_SECONDS), and `live.resumed` once the layer delivers to
it again, upon which the page reloads what it shows (static/learnportal/live.js).

A slow browser is dropped, not waited for: what it is sent goes through a queue of its own of
SEND_QUEUE frames, written by a task of its own; when that queue is full the socket is closed
with 1013 (try again later) and its browser reconnects and reloads what it shows. Nothing it
does slows the flush (core.events) or any other socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import orjson
from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer

from core.accounts.credentials import Credential, credential_of_scope
from core.accounts.watch import CredentialWatch, principal_now
from core.events import coalescer, dashboard_group, may_hear
from core.projects.selection import PROJECT_FIELD, principal_in
from learnportal.ws.learn import CLOSE_UNAUTHENTICATED, principal_of, refused_close_code
from learnportal_protocol.errors import LearnError

if TYPE_CHECKING:
    from core.accounts.principals import Principal

logger = logging.getLogger(__name__)

RESUBSCRIBE_SECONDS = 2.0
# How often an open socket checks that the layer still delivers to it (a probe it sends itself
# each PROBE_SECONDS), and after how many probes in a row sent but not delivered it pauses the
# feed (one late is a busy moment) and subscribes again (its subscription is lost).
PROBE_SECONDS = 1.0
PAUSE_AFTER_UNDELIVERED = 2
RESUBSCRIBE_AFTER_UNDELIVERED = 3
PROBE = "live.probe"
SEND_QUEUE = 64
CLOSE_TOO_SLOW = 1013
CLOSE_NO_PROJECT = 4404  # `?project=` names a project that is not there, or not the caller's
PAUSED = "live.paused"
RESUMED = "live.resumed"
PAUSED_MESSAGE = "Live updates are paused; the page still works."
RESUMED_MESSAGE = "Live updates are back."


class LayerSilent(Exception):
    """The layer took this socket's probes but delivered none: its subscription is lost."""


class EventsConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels has no types
    # The consumer subscribes by itself (see _listen), so that a layer that is down pauses the
    # feed instead of failing the handshake.
    channel_layer_alias = None
    credential: Credential | None = None
    _paused = False
    _tasks: tuple[asyncio.Task[None], ...] = ()
    _watch: CredentialWatch | None = None
    _outbox: asyncio.Queue[str]
    project = ""  # the slug of the project this socket acts in

    async def connect(self) -> None:
        credential = credential_of_scope(self.scope)
        principal = await sync_to_async(principal_of, thread_sensitive=True)(credential)
        if credential is None or principal is None:
            await self.accept()
            await self.close(code=await refused_close_code(self.scope))
            return
        principal = await sync_to_async(_acting_in, thread_sensitive=True)(
            principal, _named_project(self.scope)
        )
        if principal is None:
            await self.accept()
            await self.close(code=CLOSE_NO_PROJECT)
            return
        self.project = principal.project
        # In the group before the browser sees the socket open, so that what it reloads on
        # opening and what it hears from then on leave no gap.
        joined = await _join(self.project)
        await self.accept()
        coalescer.attach(asyncio.get_running_loop())
        self.credential = credential
        self._outbox = asyncio.Queue(maxsize=SEND_QUEUE)
        self._tasks = (
            asyncio.create_task(self._listen(joined)),
            asyncio.create_task(self._write()),
        )
        self._watch = CredentialWatch(credential, principal, self._end)
        self._watch.start()

    async def disconnect(self, code: int) -> None:
        if self._watch is not None:
            await self._watch.stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

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
        channel = joined
        while True:
            try:
                if channel is None:
                    channel = await _subscribe(layer, self.project)
                await self._relay(layer, channel)
                await _leave(layer, channel, self.project)
                return
            except asyncio.CancelledError:
                if channel:
                    await _leave(layer, channel, self.project)
                raise
            except Exception as exc:
                await self._pause(exc)
                if channel:
                    await _leave(layer, channel, self.project)
                channel = None
                await asyncio.sleep(RESUBSCRIBE_SECONDS)

    async def _relay(self, layer: Any, channel: str) -> None:
        """Forward what the channel hears until the credential ends, probing the layer each
        PROBE_SECONDS with a message to this same channel: a layer that cannot send it pauses
        the feed, and one that sends it but never delivers it (a lost subscription) raises, to
        subscribe again. The first probe that comes back resumes the feed."""
        receiving: asyncio.Task[dict[str, Any]] | None = None
        undelivered = 0
        try:
            while self.credential is not None:
                sent = await _probe(layer, channel)
                heard = False
                deadline = asyncio.get_running_loop().time() + PROBE_SECONDS
                while self.credential is not None:
                    if receiving is None:
                        receiving = asyncio.ensure_future(layer.receive(channel))
                    left = deadline - asyncio.get_running_loop().time()
                    done, _ = await asyncio.wait({receiving}, timeout=max(0.0, left))
                    if not done:
                        break
                    message, receiving = receiving.result(), None
                    if message.get("type") == PROBE:
                        heard = True
                    else:
                        await self._forward(message)
                if heard:
                    undelivered = 0
                    await self._resume()
                    continue
                undelivered = undelivered + 1 if sent else 0
                if not sent:
                    await self._pause("it could not send a probe")
                elif undelivered >= PAUSE_AFTER_UNDELIVERED:
                    await self._pause("it delivered no probe")
                if undelivered >= RESUBSCRIBE_AFTER_UNDELIVERED:
                    raise LayerSilent
        finally:
            if receiving is not None:
                receiving.cancel()

    async def _pause(self, cause: str | Exception) -> None:
        if self._paused:
            return
        self._paused = True
        logger.warning("live updates paused: the channel layer failed (%s)", cause)
        await self._notice(PAUSED, PAUSED_MESSAGE)

    async def _resume(self) -> None:
        if not self._paused:
            return
        self._paused = False
        await self._notice(RESUMED, RESUMED_MESSAGE)

    async def _forward(self, message: dict[str, Any]) -> None:
        principal = None if self.credential is None else await principal_now(self.credential)
        if principal is None:
            await self._end()
            return
        if principal.project != self.project:  # the role of a project named by `?project=`
            principal = await sync_to_async(_acting_in, thread_sensitive=True)(
                principal, self.project
            )
            if principal is None:  # no longer a member: as if the project were gone
                await self._end(CLOSE_NO_PROJECT)
                return
        if may_hear(principal, message):
            await self._enqueue({"event": message["event"], "payload": message["payload"]})

    async def _notice(self, event: str, message: str) -> None:
        await self._enqueue({"event": event, "payload": {"message": message}})


def _named_project(scope: dict[str, Any]) -> str | None:
    """The project the socket's URL names with `?project=`, if any."""
    named = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(PROJECT_FIELD)
    return named[0] if named else None


def _acting_in(principal: Principal, slug: str | None) -> Principal | None:
    """`principal` acting in `slug` (its own if None), or None for a project it may not enter."""
    try:
        return principal_in(principal, slug)
    except LearnError:
        return None


async def _join(project: str) -> str | None:
    """A channel in the project's group before the socket hears of any event, or None if the
    layer is down (then `_listen` pauses and retries)."""
    layer = get_channel_layer()
    if layer is None:
        return None
    try:
        return await _subscribe(layer, project)
    except Exception:
        return None


async def _subscribe(layer: Any, project: str) -> str:
    """A new channel of this socket's, in the project's dashboards' group."""
    channel: str = await layer.new_channel()
    group = dashboard_group(project)
    await asyncio.wait_for(layer.group_add(group, channel), RESUBSCRIBE_SECONDS)
    return channel


async def _probe(layer: Any, channel: str) -> bool:
    """Send a probe to the socket's own channel: whether the layer took it."""
    try:
        await asyncio.wait_for(layer.send(channel, {"type": PROBE}), PROBE_SECONDS)
    except Exception:
        return False
    return True


async def _leave(layer: Any, channel: str, project: str) -> None:
    """Leave the group (an in-memory layer would queue for the channel until it expires)."""
    group = dashboard_group(project)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(layer.group_discard(group, channel), RESUBSCRIBE_SECONDS)
