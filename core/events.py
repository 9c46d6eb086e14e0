"""Broadcasts to dashboards: sent only after the transaction commits, and coalesced.

So that no browser ever sees state that was rolled back, services call `broadcast_on_commit`
inside their transaction and the event is queued when (and if) it commits. Each event names the
action whose REST reads show the same data (its audience): a subscriber receives it only while
its principal may do that action, as the roles' table says (`may_hear`, asked by ws.events).
Each event also names the project it happened in (a project's slug): it is sent to that
project's group only (`dashboard_group`), which the sockets acting in that project listen to.

However fast data arrives, the dashboards hear of it a few times a second: committing an event
only marks its topic (project, event name and audience) dirty in this process's `Coalescer`, merging it
into what is already waiting, and a background task sends each dirty topic once per
FLUSH_SECONDS to the channel layer. The request that committed never waits for a send. With
REDIS_URL the layer spans processes, which is why this happens before `group_send`, not in the
consumer. A topic may carry `totals`: a function read once per flush (never per event) whose
plain values join the payload, such as the feedback count a counter on the page shows (the
project's: a topic is one project's, and so are its totals).

Broadcasts are best-effort: with the channel layer down (Redis unreachable) a flush is dropped
after at most SEND_SECONDS and the outage logged once; the request that committed never knows,
and the dashboards, told `live.paused` by their sockets (ws.events), reload what they show when
the layer is back.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections, transaction
from django.dispatch import Signal

from core.accounts.roles import Action
from core.outage import Outage
from core.timing import staged

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.accounts.principals import Principal

    Totals = Callable[[], dict[str, Any]]

logger = logging.getLogger(__name__)
layer_outage = Outage("the channel layer", "live updates are dropped", logger)

# Sent inside the change's transaction with `event`, `payload` and `project` (its slug); a
# receiver's error rolls it back. The webhooks app listens, so that the base need not know it is there.
announced = Signal()

DASHBOARD_GROUP = "learn.events"  # a project's group is this and its slug (dashboard_group)
FLUSH_SECONDS = 0.5
SEND_SECONDS = 2.0  # the longest a flush waits for the channel layer before it gives up


def dashboard_group(project: str) -> str:
    """The channel layer group of the project `project` (a slug: letters, digits, hyphens)."""
    return f"{DASHBOARD_GROUP}.{project}"


def broadcast_on_commit(
    event: str,
    payload: dict[str, Any],
    *,
    project: str,
    audience: Action,
    totals: Totals | None = None,
) -> None:
    """`announced` is sent here, inside the transaction, so that what its receivers write (the
    webhooks' outbox rows) commits or rolls back with the change it announces. `project` is
    the slug of the project the change happened in, and `totals` that project's."""
    announced.send(sender=None, event=event, payload=payload, project=project)
    transaction.on_commit(
        lambda: broadcast_now(event, payload, project=project, audience=audience, totals=totals)
    )


@staged("broadcast after commit (channel layer)")
def broadcast_now(
    event: str,
    payload: dict[str, Any],
    *,
    project: str,
    audience: Action,
    totals: Totals | None = None,
) -> None:
    """Queue the event for the next flush; returns at once, whatever the channel layer does."""
    coalescer.mark(event, payload, project=project, audience=str(audience), totals=totals)


def may_hear(principal: Principal, message: dict[str, Any]) -> bool:
    """Whether `principal` may hear a broadcast `message` (as `Topic.message` writes it): its
    audience is an action's name, judged by the roles' table; an unknown one reaches nobody."""
    try:
        audience = Action(str(message.get("audience")))
    except ValueError:
        return False
    return principal.may(audience)


def merge_payloads(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Counts add up, lists of names unite, anything else is the newest value."""
    merged = dict(old)
    for key, value in new.items():
        before = merged.get(key)
        if isinstance(value, int) and isinstance(before, int) and not isinstance(value, bool):
            merged[key] = before + value
        elif isinstance(value, list) and isinstance(before, list):
            merged[key] = sorted({*map(str, before), *map(str, value)})
        else:
            merged[key] = value
    return merged


@dataclass
class Topic:
    project: str
    event: str
    audience: str
    payload: dict[str, Any]
    totals: Totals | None = None
    events: int = 1

    def add(self, payload: dict[str, Any], totals: Totals | None) -> None:
        self.payload = merge_payloads(self.payload, payload)
        self.totals = totals or self.totals
        self.events += 1

    def message(self) -> dict[str, Any]:
        payload = dict(self.payload)
        if self.totals is not None:
            payload.update(self.totals())
        if self.events > 1:
            payload["coalesced"] = self.events
        return {
            "type": "learn.event",
            "event": self.event,
            "payload": payload,
            "audience": self.audience,
            "project": self.project,
        }


@dataclass
class Coalescer:
    """Dirty topics of this process, flushed at most once per `interval` by one task.

    The flush runs on the event loop the dashboards' consumers run on when this process serves
    any (they `attach` it), so that an in-memory channel layer is only used from its own loop;
    otherwise (a WSGI worker, a management command) on a private loop in a daemon thread.
    """

    interval: float = FLUSH_SECONDS
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _dirty: dict[tuple[str, str, str], Topic] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None
    _flush_loop: asyncio.AbstractEventLoop | None = None
    _private: asyncio.AbstractEventLoop | None = None
    _last_flush: float = 0.0
    _layer: Any = None
    _sending: set[asyncio.Task[None]] = field(default_factory=set)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def reset(self) -> None:
        """Forget what is waiting (a test's leftovers, whose loop is gone)."""
        with self._lock:
            self._dirty, self._flush_loop, self._layer = {}, None, None

    def mark(
        self,
        event: str,
        payload: dict[str, Any],
        *,
        project: str,
        audience: str,
        totals: Totals | None,
    ) -> None:
        layer = get_channel_layer()  # the layer of the commit, not of whenever the flush runs
        key = (project, event, audience)
        with self._lock:
            self._layer = layer
            topic = self._dirty.get(key)
            if topic is None:
                self._dirty[key] = Topic(project, event, audience, dict(payload), totals)
            else:
                topic.add(payload, totals)
            if self._flush_loop is not None and _serving(self._flush_loop):
                return  # a flush is already on its way and will take this along
            self._flush_loop = self._pick_loop()
        self._flush_loop.call_soon_threadsafe(self._start_flush)

    def pending(self) -> list[Topic]:
        with self._lock:
            return list(self._dirty.values())

    def _pick_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is not None and _serving(self._loop):
            return self._loop
        if self._private is None or not _serving(self._private):
            self._private = asyncio.new_event_loop()
            started = threading.Event()
            self._private.call_soon(started.set)
            threading.Thread(
                target=self._private.run_forever, name="learnportal-live-flush", daemon=True
            ).start()
            started.wait()
        return self._private

    def _start_flush(self) -> None:
        # The wait is a timer rather than a task asleep: a loop closed meanwhile (a test's)
        # drops a timer quietly, where a task never started leaves a coroutine never awaited.
        delay = max(0.0, self._last_flush + self.interval - time.monotonic())
        asyncio.get_running_loop().call_later(delay, self._flush_now)

    def _flush_now(self) -> None:
        with self._lock:
            topics, self._dirty, layer = list(self._dirty.values()), {}, self._layer
            self._flush_loop = None
            self._last_flush = time.monotonic()
        if layer is not None and topics:
            task = asyncio.get_running_loop().create_task(flush(layer, topics))
            self._sending.add(task)  # the loop keeps only a weak reference to a task
            task.add_done_callback(self._sending.discard)


def _serving(loop: asyncio.AbstractEventLoop) -> bool:
    return loop.is_running() and not loop.is_closed()


async def flush(layer: Any, topics: list[Topic]) -> None:
    # A dashboard push must never fail, nor stop the next flush.
    if layer is None or not topics:
        return
    try:
        if any(topic.totals for topic in topics):
            messages = await sync_to_async(_messages, thread_sensitive=False)(topics)
        else:
            messages = [topic.message() for topic in topics]
    except Exception:
        logger.exception("could not broadcast %s", ", ".join(t.event for t in topics))
        return
    try:  # every flush tries: it waits in no request, and a skipped one would lose its events
        for message in messages:
            group = dashboard_group(message["project"])
            await asyncio.wait_for(layer.group_send(group, message), SEND_SECONDS)
    except Exception as exc:
        layer_outage.failed(exc)
        return
    layer_outage.succeeded()


def _messages(topics: list[Topic]) -> list[dict[str, Any]]:
    try:
        return [topic.message() for topic in topics]
    finally:  # a worker thread outlives any request: leave it no connection to go stale
        close_old_connections()


coalescer = Coalescer()
