"""Sessions end when idle; an unbound one sooner; an ended one's outbox is still read once."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync

from learnportal.a2e import sessions
from learnportal.accounts.credentials import Credential

TOKEN = Credential("token", "0" * 64)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def run(coroutine: Any) -> Any:
    async def wrapper() -> Any:
        return await coroutine

    return async_to_sync(wrapper)()


def test_a_session_ends_after_its_idle_time_and_each_use_restarts_it(
    clock: Clock, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 100
    store = sessions.MemoryStore(clock)
    record = run(store.create(TOKEN))
    clock.now += 90
    assert run(store.get(record.sid)) is not None  # used: 100 s more
    clock.now += 90
    assert run(store.get(record.sid)) is not None
    clock.now += 101
    assert run(store.get(record.sid)) is None
    assert not run(store.push(record.sid, b"{}"))


def test_a_session_without_a_credential_ends_sooner(clock: Clock, settings: Any) -> None:
    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 900
    store = sessions.MemoryStore(clock)
    record = run(store.create(None))
    clock.now += sessions.PENDING_SECONDS + 1
    assert run(store.get(record.sid)) is None


def test_an_ended_session_is_refused_but_its_outbox_is_still_read(clock: Clock) -> None:
    store = sessions.MemoryStore(clock)
    record = run(store.create(TOKEN))
    assert run(store.push(record.sid, b"1"))
    run(store.end(record.sid))
    assert run(store.get(record.sid)) is None
    assert not run(store.push(record.sid, b"2"))
    assert run(store.peek(record.sid, 10)) == [b"1"]
    clock.now += sessions.ENDED_SECONDS + 1
    assert run(store.peek(record.sid, 10)) == []


@pytest.mark.redis
def test_redis_sessions_expire_after_their_idle_time(settings: Any) -> None:
    import redis

    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 100
    store = sessions.RedisStore(settings.REDIS_URL)
    record = run(store.create(TOKEN))
    run(store.push(record.sid, b"{}"))
    client = redis.Redis.from_url(settings.REDIS_URL)
    record_key, outbox_key, _ = store._keys(record.sid)
    assert 0 < client.ttl(record_key) <= 100
    assert 0 < client.ttl(outbox_key) <= 100
    run(store.end(record.sid))
    assert client.exists(record_key) == 0
    assert 0 < client.ttl(outbox_key) <= sessions.ENDED_SECONDS
