"""Sessions end when idle, an unbound one on its own clock; outboxes and sessions are bounded;
a written message stays until acknowledged. The same rules in this process and in Redis."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings as django_settings

from core.accounts.credentials import Credential
from learnportal.a2e import sessions
from learnportal.a2e.memorystore import MemoryStore
from learnportal.a2e.redisstore import RedisStore

if TYPE_CHECKING:
    from collections.abc import Iterator

    from learnportal.a2e.sessions import SessionRecord, SessionStore

TOKEN = Credential("token", "0" * 64)
AGENT = "token:agent-1"
ADDRESS = sessions.address_owner("10.0.0.1")


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


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store(request: pytest.FixtureRequest) -> Iterator[SessionStore]:
    if request.param == "memory":
        yield MemoryStore()
        return
    import redis

    client = redis.Redis.from_url(django_settings.REDIS_URL)
    client.delete(*client.keys("a2e:*") or ["a2e:none"])
    yield RedisStore(django_settings.REDIS_URL)
    client.delete(*client.keys("a2e:*") or ["a2e:none"])


def opened(store: SessionStore, credential: Credential | None = TOKEN) -> SessionRecord:
    owner = AGENT if credential is not None else ADDRESS
    record, _ = sessions.new_session(credential, owner=owner)
    assert run(store.create(record, 100))
    return record


def written(store: SessionStore, sid: str, generation: int) -> list[bytes]:
    """What a stream of `generation` writes now, marked as written."""
    events = run(store.unsent(sid, 1000))
    run(store.mark_sent(sid, generation, events))
    return [e.data for e in events]


# --- lifetimes -------------------------------------------------------------------------------------


def test_a_session_ends_after_its_idle_time_and_each_use_restarts_it(
    clock: Clock, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 100
    store = MemoryStore(clock)
    record = opened(store)
    clock.now += 90
    assert run(store.get(record.sid)) is not None  # used: 100 s more
    clock.now += 90
    assert run(store.get(record.sid)) is not None
    clock.now += 101
    assert run(store.get(record.sid)) is None
    assert not run(store.push(record.sid, b"{}"))


def test_an_unbound_session_ends_on_its_own_clock_however_much_it_is_used(
    clock: Clock, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 900
    store = MemoryStore(clock)
    record = opened(store, None)
    for _ in range(sessions.PENDING_SECONDS // 10 - 1):
        clock.now += 10
        assert run(store.get(record.sid)) is not None
        assert run(store.push(record.sid, b"{}"))
        run(store.save(record, 100))
    clock.now += 11
    assert run(store.get(record.sid)) is None


@pytest.mark.redis
def test_an_unbound_redis_session_is_not_given_more_time_by_its_use(settings: Any) -> None:
    import redis

    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 900
    store = RedisStore(settings.REDIS_URL)
    record = opened(store, None)
    client = redis.Redis.from_url(settings.REDIS_URL)
    record_key = f"a2e:s:{record.sid}"
    client.expire(record_key, 30)
    run(store.get(record.sid))
    run(store.push(record.sid, b"{}"))
    run(store.save(record, 100))
    assert 0 < client.ttl(record_key) <= 30
    bound = opened(store)
    client.expire(f"a2e:s:{bound.sid}", 30)
    run(store.get(bound.sid))
    assert client.ttl(f"a2e:s:{bound.sid}") > 800  # a bound one's idle time restarts


def test_an_ended_session_is_refused_but_its_outbox_is_still_read(clock: Clock) -> None:
    store = MemoryStore(clock)
    record = opened(store)
    assert run(store.push(record.sid, b"1"))
    run(store.end(record.sid))
    assert run(store.get(record.sid)).ended
    assert not run(store.push(record.sid, b"2"))
    assert [e.data for e in run(store.unsent(record.sid, 10))] == [b"1"]
    clock.now += sessions.ENDED_SECONDS + 1
    assert run(store.get(record.sid)) is None
    assert run(store.unsent(record.sid, 10)) == []


@pytest.mark.redis
def test_redis_sessions_expire_after_their_idle_time(settings: Any) -> None:
    import redis

    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 100
    store = RedisStore(settings.REDIS_URL)
    record = opened(store)
    run(store.push(record.sid, b"{}"))
    client = redis.Redis.from_url(settings.REDIS_URL)
    record_key, outbox_key, _ = store._keys(record.sid)
    assert 0 < client.ttl(record_key) <= 100
    assert 0 < client.ttl(outbox_key) <= 100
    run(store.end(record.sid))
    assert 0 < client.ttl(record_key) <= sessions.ENDED_SECONDS
    assert 0 < client.ttl(outbox_key) <= sessions.ENDED_SECONDS


# --- bounds ----------------------------------------------------------------------------------------


def test_an_outbox_is_full_by_bytes_as_well_as_by_count(store: SessionStore, settings: Any) -> None:
    settings.LEARNPORTAL_A2E_MAX_QUEUED = 1000
    settings.LEARNPORTAL_A2E_MAX_QUEUED_BYTES = 64 * 1024
    record = opened(store)
    run(store.push(record.sid, b"x" * 40_000))
    assert not sessions.is_full(run(store.backlog(record.sid)))
    run(store.push(record.sid, b"x" * 40_000))
    assert sessions.is_full(run(store.backlog(record.sid)))


def test_written_messages_make_room_oldest_first_within_both_bounds(
    store: SessionStore, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_MAX_QUEUED = 3
    settings.LEARNPORTAL_A2E_MAX_QUEUED_BYTES = 64 * 1024
    record = opened(store)
    generation = run(store.take_stream(record.sid, None))
    for i in range(10):
        run(store.push(record.sid, b"%d" % i))
        written(store, record.sid, generation)
    run(store.push(record.sid, b"y" * 65_536))  # a big one: the written give way to it
    footprint = run(store.footprint())
    assert footprint.messages <= 3
    backlog = run(store.backlog(record.sid))
    assert (backlog.unsent, backlog.kept) == (1, 1)


def test_an_owner_holds_at_most_its_limit_of_live_sessions(store: SessionStore) -> None:
    records = [sessions.new_session(None, owner=ADDRESS)[0] for _ in range(3)]
    assert [run(store.create(r, 2)) for r in records] == [True, True, False]
    run(store.end(records[0].sid))  # an ended session no longer counts
    assert run(store.create(records[2], 2))
    other, _ = sessions.new_session(None, owner=sessions.address_owner("10.0.0.2"))
    assert run(store.create(other, 2))


def test_binding_moves_a_session_to_its_principal_within_the_principals_limit(
    store: SessionStore,
) -> None:
    first, second = (sessions.new_session(None, owner=ADDRESS)[0] for _ in range(2))
    assert run(store.create(first, 1))
    assert run(store.save(replace(first, owner=AGENT, credential=TOKEN), 1))
    assert run(store.create(second, 1))  # the address holds none unbound any more
    assert not run(store.save(replace(second, owner=AGENT, credential=TOKEN), 1))


# --- delivery --------------------------------------------------------------------------------------


def test_a_new_stream_writes_again_what_no_last_event_id_acknowledged(
    store: SessionStore,
) -> None:
    record = opened(store)
    first = run(store.take_stream(record.sid, None))
    for i in range(5):
        run(store.push(record.sid, b"%d" % i))
    events = run(store.unsent(record.sid, 3))
    run(store.mark_sent(record.sid, first, events))
    assert [e.seq for e in events] == [1, 2, 3]
    # The connection dropped after event 2 arrived: the next stream says so and gets 3, 4, 5.
    second = run(store.take_stream(record.sid, 2))
    assert written(store, record.sid, second) == [b"2", b"3", b"4"]
    # Without Last-Event-ID (the SDK), everything not acknowledged, the same bytes again.
    third = run(store.take_stream(record.sid, None))
    assert written(store, record.sid, third) == [b"2", b"3", b"4"]
    # An older stream's write is not counted.
    run(store.push(record.sid, b"5"))
    run(store.mark_sent(record.sid, second, run(store.unsent(record.sid, 10))))
    assert run(store.backlog(record.sid)).unsent == 1


def test_an_acknowledgement_never_drops_what_was_not_written(store: SessionStore) -> None:
    record = opened(store)
    generation = run(store.take_stream(record.sid, None))
    run(store.push(record.sid, b"a"))
    written(store, record.sid, generation)
    run(store.push(record.sid, b"b"))
    later = run(store.take_stream(record.sid, 99))
    assert written(store, record.sid, later) == [b"b"]


def test_an_acknowledgement_covers_what_a_stream_wrote_before_it_counted_it(
    store: SessionStore,
) -> None:
    record = opened(store)
    old = run(store.take_stream(record.sid, None))
    for i in range(3):
        run(store.push(record.sid, b"%d" % i))
    events = run(store.unsent(record.sid, 10))  # written to the client; not yet marked...
    # ...when the client, which read all three, reconnects saying so.
    newer = run(store.take_stream(record.sid, events[-1].seq))
    run(store.mark_sent(record.sid, old, events))  # the old stream's count comes too late
    assert written(store, record.sid, newer) == []  # nothing twice
    assert run(store.backlog(record.sid)) == (0, 0, 0)


def test_a_wrong_secret_finds_no_session_and_gives_it_no_more_time(
    clock: Clock, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_IDLE_SECONDS = 100
    store = MemoryStore(clock)
    record = opened(store)
    clock.now += 90
    assert run(store.get(record.sid, sessions.hash_secret("guess"))) is None
    clock.now += 11
    assert run(store.get(record.sid)) is None


@pytest.mark.redis
def test_a_wrong_secret_finds_no_redis_session(settings: Any) -> None:
    store = RedisStore(settings.REDIS_URL)
    record, session_id = sessions.new_session(TOKEN, owner=AGENT)
    assert run(store.create(record, 100))
    sid, secret = session_id.split(".")
    assert run(store.get(sid, sessions.hash_secret("guess"))) is None
    assert run(store.get(sid, sessions.hash_secret(secret))) == record
