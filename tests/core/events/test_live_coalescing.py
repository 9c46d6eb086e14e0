"""What a dashboard's socket hears while data pours in: a few merged messages, for its role only.

Events are coalesced per topic in the process that commits them (core.events) and each
socket writes through a bounded queue of its own (learnportal.ws.events), so a burst of any
size is a message or two, and a browser that cannot keep up is closed instead of waited for.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from core import events
from core.accounts.roles import Action
from core.events import Coalescer, broadcast_now, dashboard_group, merge_payloads
from learnportal.ws import events as ws_events
from tests.builders import feedback, feedback_req
from tests.harness import WS_TIMEOUT, Actor, ws_communicator

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator

BURST = 300


async def _listener(actor: Actor) -> WebsocketCommunicator:
    communicator = ws_communicator(token=actor.raw_token, path="/ws/events/")
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    return communicator


async def _drain(listener: WebsocketCommunicator, *, quiet: float = 1.0) -> list[dict[str, Any]]:
    """Every frame until none came for `quiet` seconds (longer than a flush interval)."""
    frames = []
    while not await listener.receive_nothing(timeout=quiet):
        frames.append(orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT)))
    return frames


def test_events_of_one_topic_merge_counts_add_up_and_names_unite() -> None:
    merged = merge_payloads(
        {"count": 2, "components": ["b"], "by": "agent-1"},
        {"count": 3, "components": ["a", "b"], "by": "agent-2"},
    )
    assert merged == {"count": 5, "components": ["a", "b"], "by": "agent-2"}


def test_a_burst_waits_as_one_topic_per_event_and_audience() -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    coalescer = Coalescer(interval=3600, _last_flush=time.monotonic())  # no flush in this test
    coalescer.attach(loop)
    try:
        for _ in range(BURST):
            coalescer.mark(
                "feedback.recorded",
                {"count": 1},
                project="default",
                audience="read stats",
                totals=None,
            )
        coalescer.mark(
            "refinement.plan", {"plan_id": "p"}, project="default", audience="history", totals=None
        )
        pending = {(t.event, t.audience): t for t in coalescer.pending()}
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
    assert set(pending) == {("feedback.recorded", "read stats"), ("refinement.plan", "history")}
    assert pending[("feedback.recorded", "read stats")].message()["payload"] == {
        "count": BURST,
        "coalesced": BURST,
    }


@pytest.mark.django_db(transaction=True)
async def test_a_burst_of_feedback_batches_reaches_a_dashboard_as_a_few_messages(
    ann: Actor, agent: Actor
) -> None:
    listener = await _listener(ann)
    started = time.monotonic()

    def ingest() -> None:
        for n in range(40):
            body = feedback_req(*(feedback(component_name=f"c{n % 3}") for _ in range(25)))
            assert agent.learn(body).status_code == 200

    await sync_to_async(ingest)()
    elapsed = time.monotonic() - started
    frames = await _drain(listener)
    assert {frame["event"] for frame in frames} == {"feedback.recorded"}
    assert sum(frame["payload"]["count"] for frame in frames) == 1000
    # One message per flush interval at most, plus the first, which leaves at once.
    assert len(frames) <= elapsed / events.FLUSH_SECONDS + 2, (len(frames), elapsed)
    assert len(frames) < 40
    last = frames[-1]["payload"]
    assert last["feedback_count"] == 1000  # read once at the flush, after the last commit
    assert {name for frame in frames for name in frame["payload"]["components"]} == {
        "c0",
        "c1",
        "c2",
    }
    await listener.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_an_annotator_hears_the_counts_but_not_the_refinements_a_reviewer_hears(
    ann: Actor, rev: Actor
) -> None:
    annotator, reviewer = await _listener(ann), await _listener(rev)
    for _ in range(20):
        await sync_to_async(broadcast_now)(
            "refinement.plan", {"plan_id": "p1"}, project="default", audience=Action.HISTORY
        )
        await sync_to_async(broadcast_now)(
            "feedback.recorded", {"count": 1}, project="default", audience=Action.STATS
        )
    heard_by_reviewer = {frame["event"] for frame in await _drain(reviewer)}
    heard_by_annotator = {frame["event"] for frame in await _drain(annotator, quiet=0.1)}
    assert heard_by_reviewer == {"refinement.plan", "feedback.recorded"}
    assert heard_by_annotator == {"feedback.recorded"}
    await annotator.disconnect()
    await reviewer.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_slow_dashboard_is_closed_and_neither_the_sender_nor_others_wait_for_it(
    ann: Actor, rev: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    stuck = asyncio.Event()  # never set: the slow browser never takes a frame
    write = ws_events.EventsConsumer._write
    slow_header = f"Bearer {ann.raw_token}".encode()

    async def slow_write(consumer: ws_events.EventsConsumer) -> None:
        if dict(consumer.scope["headers"]).get(b"authorization") == slow_header:
            await stuck.wait()
        await write(consumer)

    monkeypatch.setattr(ws_events.EventsConsumer, "_write", slow_write)
    slow, fast = await _listener(ann), await _listener(rev)
    layer = get_channel_layer()
    assert layer is not None
    frames = ws_events.SEND_QUEUE + 1
    for n in range(frames):
        message = {"event": "test.ping", "payload": {"n": n}, "audience": Action.STATS.value}
        await layer.group_send(dashboard_group("default"), {"type": "learn.event", **message})

    closed = await slow.receive_output(timeout=WS_TIMEOUT)
    assert closed == {"type": "websocket.close", "code": ws_events.CLOSE_TOO_SLOW}
    heard = [orjson.loads(await fast.receive_from(timeout=WS_TIMEOUT)) for _ in range(frames)]
    assert [frame["payload"]["n"] for frame in heard] == list(range(frames))
    assert not stuck.is_set()  # all of that while the slow one was still stuck
    await fast.disconnect()
