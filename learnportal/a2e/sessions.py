"""Where A2E sessions live: a record (who it is bound to, whether it shook hands) and an outbox.

A reply is pushed to its session's outbox by whichever process served the `/send`; the process
holding the session's `/stream` reads the outbox in order and removes what it wrote. The outbox is
a store, not a channel: the Redis channel layer is publish/subscribe, so a reply sent while the
agent's stream was reconnecting would be lost; the channel layer only wakes the stream up
(consumers.wake). Without REDIS_URL everything is in this process, with REDIS_URL in Redis, so
that `/send` and `/stream` of one session may be served by different processes.

A session ends when it is idle for LEARNPORTAL_A2E_IDLE_SECONDS (no request, no open stream), a
session not yet bound to a credential after PENDING_SECONDS.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from django.conf import settings

from learnportal.accounts.credentials import Credential

if TYPE_CHECKING:
    from collections.abc import Callable

    from redis.asyncio import Redis

PENDING_SECONDS = 60  # an unbound session must shake hands (or be bound by its header) by then
ENDED_SECONDS = 60  # how long an ended session's stream may still drain its outbox


@dataclass
class SessionRecord:
    sid: str
    credential: Credential | None = None
    handshaken: bool = False
    created: float = field(default_factory=time.time)


def idle_seconds(record: SessionRecord) -> int:
    idle: int = settings.LEARNPORTAL_A2E_IDLE_SECONDS
    return idle if record.credential is not None else min(idle, PENDING_SECONDS)


def new_session_id() -> str:
    return uuid.uuid4().hex


class SessionStore(Protocol):
    async def create(self, credential: Credential | None) -> SessionRecord: ...

    async def get(self, sid: str) -> SessionRecord | None:
        """The session, its idle time restarted; None if unknown, ended or expired."""

    async def save(self, record: SessionRecord) -> None: ...

    async def end(self, sid: str) -> None:
        """Refuse the session from now on; its stream still writes what its outbox holds."""

    async def queued(self, sid: str) -> int: ...

    async def push(self, sid: str, message: bytes) -> bool:
        """Append to the outbox; False if the session is gone."""

    async def take_stream(self, sid: str) -> int:
        """Make the caller the session's one stream; its generation (an older stream stops)."""

    async def stream_generation(self, sid: str) -> int: ...

    async def peek(self, sid: str, count: int) -> list[bytes]: ...

    async def trim(self, sid: str, count: int) -> None:
        """Remove the first `count` messages, which the stream has written."""


# --- in this process ----------------------------------------------------------------------------


@dataclass
class _Entry:
    record: SessionRecord
    expires: float
    outbox: deque[bytes] = field(default_factory=deque)
    generation: int = 0
    ended: bool = False


class MemoryStore:
    """Sessions of this process only: the default in-memory channel layer reaches no other."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}

    def _entry(self, sid: str) -> _Entry | None:
        """The session's entry, ended or not, unless it expired."""
        entry = self._entries.get(sid)
        if entry is not None and entry.expires <= self.clock():
            del self._entries[sid]
            return None
        return entry

    def _live(self, sid: str) -> _Entry | None:
        """The entry of a session that has not ended, its idle time restarted."""
        entry = self._entry(sid)
        if entry is None or entry.ended:
            return None
        entry.expires = self.clock() + idle_seconds(entry.record)
        return entry

    async def create(self, credential: Credential | None) -> SessionRecord:
        record = SessionRecord(new_session_id(), credential)
        now = self.clock()
        with self._lock:
            for sid in [s for s, e in self._entries.items() if e.expires <= now]:
                del self._entries[sid]
            self._entries[record.sid] = _Entry(record, now + idle_seconds(record))
        return record

    async def get(self, sid: str) -> SessionRecord | None:
        with self._lock:
            entry = self._live(sid)
            if entry is None:
                return None
            r = entry.record
            return SessionRecord(r.sid, r.credential, r.handshaken, r.created)

    async def save(self, record: SessionRecord) -> None:
        with self._lock:
            entry = self._live(record.sid)
            if entry is not None:
                entry.record = record
                entry.expires = self.clock() + idle_seconds(record)

    async def end(self, sid: str) -> None:
        with self._lock:
            entry = self._entry(sid)
            if entry is not None:
                entry.ended = True
                entry.expires = min(entry.expires, self.clock() + ENDED_SECONDS)

    async def queued(self, sid: str) -> int:
        with self._lock:
            entry = self._entry(sid)
            return 0 if entry is None else len(entry.outbox)

    async def push(self, sid: str, message: bytes) -> bool:
        with self._lock:
            entry = self._live(sid)
            if entry is None:
                return False
            entry.outbox.append(message)
            return True

    async def take_stream(self, sid: str) -> int:
        with self._lock:
            entry = self._entry(sid)
            if entry is None:
                return 0
            entry.generation += 1
            return entry.generation

    async def stream_generation(self, sid: str) -> int:
        with self._lock:
            entry = self._entry(sid)
            return 0 if entry is None else entry.generation

    async def peek(self, sid: str, count: int) -> list[bytes]:
        with self._lock:
            entry = self._entry(sid)
            if entry is None:
                return []
            return [entry.outbox[i] for i in range(min(count, len(entry.outbox)))]

    async def trim(self, sid: str, count: int) -> None:
        with self._lock:
            entry = self._entry(sid)
            if entry is None:
                return
            for _ in range(min(count, len(entry.outbox))):
                entry.outbox.popleft()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


# --- in Redis -------------------------------------------------------------------------------------

# Append only to a session that still exists, and give the outbox the record's lifetime.
_PUSH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], redis.call('TTL', KEYS[1]))
return 1
"""


class RedisStore:
    """Sessions shared by every process: a hash per session, a list as its outbox."""

    def __init__(self, url: str) -> None:
        self.url = url
        # redis.asyncio connections belong to the event loop that opened them.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Redis] = (
            weakref.WeakKeyDictionary()
        )

    def _redis(self) -> Redis:
        from redis.asyncio import Redis

        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = Redis.from_url(self.url, socket_connect_timeout=2, socket_timeout=5)
            self._clients[loop] = client
        return client

    @staticmethod
    def _keys(sid: str) -> tuple[str, str, str]:
        return f"a2e:s:{sid}", f"a2e:o:{sid}", f"a2e:g:{sid}"

    async def _expire(self, record: SessionRecord) -> None:
        seconds = idle_seconds(record)
        async with self._redis().pipeline(transaction=False) as pipe:
            for key in self._keys(record.sid):
                pipe.expire(key, seconds)
            await pipe.execute()

    async def create(self, credential: Credential | None) -> SessionRecord:
        record = SessionRecord(new_session_id(), credential)
        await self.save(record)
        return record

    async def get(self, sid: str) -> SessionRecord | None:
        raw = await self._redis().hgetall(self._keys(sid)[0])
        if not raw:
            return None
        values = {_text(k): _text(v) for k, v in raw.items()}
        kind = values.get("kind", "")
        credential = (
            Credential("token" if kind == "token" else "session", values["secret"])
            if kind
            else None
        )
        record = SessionRecord(
            sid, credential, values.get("handshaken") == "1", float(values["created"])
        )
        await self._expire(record)
        return record

    async def save(self, record: SessionRecord) -> None:
        credential = record.credential
        mapping: dict[str | bytes, str | bytes] = {
            "kind": credential.kind if credential else "",
            "secret": credential.secret if credential else "",
            "handshaken": "1" if record.handshaken else "0",
            "created": repr(record.created),
        }
        await self._redis().hset(self._keys(record.sid)[0], mapping=mapping)  # type: ignore[arg-type]
        await self._expire(record)

    async def end(self, sid: str) -> None:
        record_key, outbox_key, generation_key = self._keys(sid)
        async with self._redis().pipeline(transaction=True) as pipe:
            pipe.delete(record_key)
            pipe.expire(outbox_key, ENDED_SECONDS)
            pipe.expire(generation_key, ENDED_SECONDS)
            await pipe.execute()

    async def queued(self, sid: str) -> int:
        return int(await self._redis().llen(self._keys(sid)[1]))

    async def push(self, sid: str, message: bytes) -> bool:
        record_key, outbox_key, _ = self._keys(sid)
        pushed = await self._redis().eval(_PUSH, 2, record_key, outbox_key, message)
        return bool(pushed)

    async def take_stream(self, sid: str) -> int:
        record_key, _, generation_key = self._keys(sid)
        redis = self._redis()
        generation = int(await redis.incr(generation_key))
        ttl = int(await redis.ttl(record_key))  # none left: the session ended, its outbox drains
        await redis.expire(generation_key, ttl if ttl > 0 else ENDED_SECONDS)
        return generation

    async def stream_generation(self, sid: str) -> int:
        value = await self._redis().get(self._keys(sid)[2])
        return int(value) if value else 0

    async def peek(self, sid: str, count: int) -> list[bytes]:
        messages = await self._redis().lrange(self._keys(sid)[1], 0, count - 1)
        return [m.encode() if isinstance(m, str) else m for m in messages]

    async def trim(self, sid: str, count: int) -> None:
        await self._redis().ltrim(self._keys(sid)[1], count, -1)


_store: SessionStore | None = None


def store() -> SessionStore:
    """The store of the settings: Redis when REDIS_URL is set, else this process."""
    global _store
    if _store is None:
        _store = RedisStore(settings.REDIS_URL) if settings.REDIS_URL else MemoryStore()
    return _store
