"""A fuzz of unauthenticated /a2e traffic: many sessions, many sends with huge ids and bodies.
What the session store holds (sessions, messages, bytes: MEMORY USAGE in Redis) stays within
bounds that do not grow with the traffic, and falls back as unbound sessions expire."""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any

import httpx
import orjson
from asgiref.sync import async_to_sync

from learnportal.a2e import sessions

if TYPE_CHECKING:
    import pytest

    from learnportal.a2e.sessions import Footprint

ROUNDS = 4
SESSIONS_TRIED = 30  # a round, from one address: more than it may hold unbound
SENDS = 6  # a session, a round
HUGE = 256 * 1024
REPLY_BOUND = 2048  # what one stored reply may weigh, whatever it answers


def footprint() -> Footprint:
    async def read() -> Footprint:
        return await sessions.store().footprint()

    result: Footprint = async_to_sync(read)()
    return result


def hostile(rng: random.Random) -> bytes:
    """One of the messages an attacker without a credential sends, each with a huge part."""
    huge = "x" * rng.randint(HUGE // 32, HUGE)  # under and over what an unbound session takes
    kind = rng.randrange(6)
    if kind == 0:
        return orjson.dumps({"type": "learn/stats/req", "id": huge})
    if kind == 1:
        return orjson.dumps({"type": "ping", "id": huge, "junk": huge})
    if kind == 2:
        return orjson.dumps({"type": "handshake/req", "id": huge, "auth_token": "nope"})
    if kind == 3:
        return orjson.dumps({"type": huge, "id": "a"})
    if kind == 4:
        return orjson.dumps({"type": "learn/feedback/req", huge: 1, "id": huge})
    return b"{" + huge.encode()  # not JSON


def test_unauthenticated_traffic_keeps_the_session_store_bounded(
    a2e_url: str, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions, "PENDING_SECONDS", 2)  # unbound sessions expire within a round
    settings.LEARNPORTAL_A2E_MAX_UNBOUND_SESSIONS = 20
    rng = random.Random(20)
    sent_bytes = 0
    seen: list[Footprint] = []
    statuses: set[int] = set()
    with httpx.Client(base_url=a2e_url, timeout=60) as client:
        for _ in range(ROUNDS):
            opened = [client.post("/session") for _ in range(SESSIONS_TRIED)]
            statuses.update(r.status_code for r in opened)
            ids = [r.json()["session_id"] for r in opened if r.status_code == 200]
            for session_id in ids:
                for _ in range(SENDS):
                    body = hostile(rng)
                    sent_bytes += len(body)
                    answer = client.post(
                        "/send", content=body, headers={"X-Session-Id": session_id}
                    )
                    statuses.add(answer.status_code)
            seen.append(footprint())
            time.sleep(sessions.PENDING_SECONDS + 0.5)
    # Never a 500. 429: the address's sessions were capped; 413: a body over what an unbound
    # session takes; 404 (on a slow machine): a session that expired within its round.
    assert statuses - {404} == {200, 413, 429}, statuses
    assert sent_bytes > 50 * 1024 * 1024
    for held in seen:
        assert held.sessions <= 20, seen
        assert held.messages <= 20 * SENDS, seen
        assert held.bytes <= 20 * (SENDS * REPLY_BOUND + 4096), seen  # 4 KiB a session's keys
    assert max(h.bytes for h in seen) <= 2 * min(h.bytes for h in seen) + 64 * 1024, seen  # flat
    assert footprint().sessions == 0  # each expired on its own clock
