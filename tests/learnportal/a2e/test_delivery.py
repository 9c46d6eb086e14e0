"""A reply written to a stream that died is written again to the next one: each event has an
`id:`, and what was written stays in the outbox until a `Last-Event-ID` acknowledges it. A client
that sends none (the SDK's HTTPTransport) may get a message twice, the same bytes with the same
`req_id`; nothing is lost either way."""

from __future__ import annotations

import re
import socket
import struct
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import orjson
import pytest

from tests.learnportal.a2e.client import Stream, message

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.harness import Actor
    from tests.learnportal.a2e.client import A2ESession

    Connect = Callable[..., A2ESession]

EVENT = re.compile(rb"id: (\d+)\ndata: ([^\n]*)\n\n")
BURST = 200


def cut_mid_burst(session: A2ESession, pings: list[dict[str, object]]) -> list[tuple[int, bytes]]:
    """Open a stream on a bare socket, send `pings`, read a part of the replies and reset the
    connection mid-burst while the host still writes; the (id, data) of the events read whole."""
    url = urlsplit(session.base_url)
    sock = socket.create_connection((url.hostname, url.port), timeout=30)
    request = (
        f"GET {url.path}/stream HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"X-Session-Id: {session.session_id}\r\n\r\n"
    )
    sock.sendall(request.encode())
    received = b""
    for ping in pings[: BURST // 2]:
        session.send(ping)
    while len(EVENT.findall(received)) < BURST // 4:
        received += sock.recv(65536)
    for ping in pings[BURST // 2 :]:
        session.send(ping)  # written, some of them, to a connection about to be reset
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # a reset: what the kernel holds unread is gone
    return [(int(seq), data) for seq, data in EVENT.findall(received)]


def read_until_answered(stream: Stream, wanted: set[object]) -> list[bytes]:
    """The data of the events `stream` writes until every id of `wanted` has its reply."""
    seen: set[object] = set()
    while not wanted <= seen:
        reply = stream.next()
        assert reply is not None, "the stream ended"
        seen.add(reply["req_id"])
    return [data.encode() for data in stream.raw]


@pytest.mark.parametrize("resume", [True, False], ids=["last-event-id", "sdk"])
def test_a_stream_cut_mid_burst_loses_nothing(connect: Connect, agent: Actor, resume: bool) -> None:
    session = connect(agent.token)
    assert session.stream is not None
    session.stream.close()
    pings = [message("ping") for _ in range(BURST)]
    before = cut_mid_burst(session, pings)
    assert 0 < len(before) < BURST
    seqs = [seq for seq, _ in before]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # one id an event, in order
    answered = {orjson.loads(data).get("req_id") for _, data in before}
    last = str(seqs[-1]) if resume else None
    stream = Stream(session.base_url, session.session_id, last_event_id=last)
    after = read_until_answered(stream, {p["id"] for p in pings} - answered)
    stream.close()
    replies = [orjson.loads(data) for _, data in before] + [orjson.loads(d) for d in after]
    pongs = [r["req_id"] for r in replies if r["type"] == "pong"]
    assert set(pongs) == {p["id"] for p in pings}  # nothing lost
    if resume:
        assert sorted(pongs) == sorted(p["id"] for p in pings)  # nothing twice
    else:
        first_copy = {orjson.loads(data)["id"]: data for _, data in before}
        for data in after:  # a message written again is the same bytes
            message_id = orjson.loads(data)["id"]
            assert first_copy.get(message_id, data) == data


def test_events_carry_increasing_ids(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    assert session.stream is not None
    ids = []
    for _ in range(3):
        session.rpc(message("ping"))
        ids.append(int(session.stream.last_event_id or 0))
    assert ids == sorted(ids) and len(set(ids)) == 3


def test_a_last_event_id_that_is_not_an_event_id_is_invalid(connect: Connect, agent: Actor) -> None:
    import httpx

    session = connect(agent.token)
    headers = {"X-Session-Id": session.session_id, "Last-Event-ID": "soon"}
    response = httpx.get(f"{session.base_url}/stream", headers=headers)
    assert (response.status_code, response.json()["code"]) == (400, "invalid")
    assert "Last-Event-ID" in response.json()["message"]
