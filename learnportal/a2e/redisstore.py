"""A2E sessions shared by every process, in Redis.

Per session (public id `sid`): `a2e:s:<sid>` the record (a hash), `a2e:o:<sid>` the outbox (a list
of `<event id>:<json>`), `a2e:m:<sid>` the outbox's counters and the stream's generation (a hash);
per owner, `a2e:u:<owner>` the ids of its sessions (a set). Every change that reads and writes
is one Lua script, so that two processes never count or bound an outbox from the same stale
read. The scripts name the other sessions' keys themselves: fine on one Redis, not on a cluster.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Any

from django.conf import settings

from core.accounts.credentials import Credential
from learnportal.a2e.sessions import (
    ENDED_SECONDS,
    PENDING_SECONDS,
    Backlog,
    Event,
    Footprint,
    SessionRecord,
    lifetime,
)

if TYPE_CHECKING:
    from redis.asyncio import Redis

PREFIX = "a2e:"
RECORD, OUTBOX, META, OWNED = (f"{PREFIX}{kind}:" for kind in "somu")

# How many live sessions the owner set KEYS[n] holds; the ended and expired leave it on the way.
_LIVE = f"""
local function live(owned)
  local count = 0
  for _, other in ipairs(redis.call('SMEMBERS', owned)) do
    if redis.call('HGET', '{RECORD}' .. other, 'ended') == '0' then
      count = count + 1
    else
      redis.call('SREM', owned, other)
    end
  end
  return count
end
"""

# KEYS: record, meta, owned; ARGV: limit, ttl, owned ttl, sid, then the record's fields.
_CREATE = (
    _LIVE
    + """
if live(KEYS[3]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('HSET', KEYS[2], 'gen', 0, 'next', 1, 'sent', 0, 'written', 0, 'size', 0,
           'sentsize', 0)
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 1
"""
)

# KEYS: record, outbox, meta; ARGV: idle seconds, the secret's hash ('' for any). A bound, live
# session's idle time restarts.
_GET = f"""
local record = redis.call('HGETALL', KEYS[1])
if #record == 0 then return record end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'hash') ~= ARGV[2] then return {{}} end
if redis.call('HGET', KEYS[1], 'kind') ~= '' and redis.call('HGET', KEYS[1], 'ended') == '0' then
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
  redis.call('EXPIRE', '{OWNED}' .. redis.call('HGET', KEYS[1], 'owner'), ARGV[1])
end
return record
"""

# KEYS: record, outbox, meta, old owned, new owned; ARGV: limit, ttl (0: keep), owned ttl, sid,
# then the record's fields.
_SAVE = (
    _LIVE
    + """
if redis.call('HGET', KEYS[1], 'ended') ~= '0' then return 1 end
if KEYS[4] ~= KEYS[5] then
  if live(KEYS[5]) >= tonumber(ARGV[1]) then return 0 end
  redis.call('SREM', KEYS[4], ARGV[4])
  redis.call('SADD', KEYS[5], ARGV[4])
  redis.call('EXPIRE', KEYS[5], ARGV[3])
end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
if tonumber(ARGV[2]) > 0 then
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
end
return 1
"""
)

# KEYS: record, outbox, meta; ARGV: seconds left at most.
_END = f"""
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'ended', '1')
redis.call('SREM', '{OWNED}' .. redis.call('HGET', KEYS[1], 'owner'), ARGV[2])
for i = 1, 3 do
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl == -1 or ttl > 1000 * tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[i], ARGV[1]) end
end
return 1
"""

# KEYS: record, outbox, meta; ARGV: message, most messages, most bytes.
_PUSH = """
if redis.call('HGET', KEYS[1], 'ended') ~= '0' then return 0 end
local seq = redis.call('HINCRBY', KEYS[3], 'next', 1) - 1
local item = seq .. ':' .. ARGV[1]
local count = redis.call('RPUSH', KEYS[2], item)
local size = redis.call('HINCRBY', KEYS[3], 'size', #item)
local sent = tonumber(redis.call('HGET', KEYS[3], 'sent'))
local sentsize = tonumber(redis.call('HGET', KEYS[3], 'sentsize'))
while sent > 0 and (count > tonumber(ARGV[2]) or size > tonumber(ARGV[3])) do
  local dropped = redis.call('LPOP', KEYS[2])
  count, size, sent, sentsize = count - 1, size - #dropped, sent - 1, sentsize - #dropped
end
redis.call('HSET', KEYS[3], 'size', size, 'sent', sent, 'sentsize', sentsize)
-- In milliseconds: TTL rounds, and a record with less than half a second left reads 0.
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return 1
"""

# KEYS: outbox, meta; ARGV: the acknowledged event id, -1 for none.
_TAKE = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local size = tonumber(redis.call('HGET', KEYS[2], 'size'))
local covered = math.min(tonumber(ARGV[1]), tonumber(redis.call('HGET', KEYS[2], 'written')))
while true do
  local first = redis.call('LINDEX', KEYS[1], 0)
  if not first or tonumber(string.match(first, '^(%d+):')) > covered then break end
  redis.call('LPOP', KEYS[1])
  size = size - #first
end
redis.call('HSET', KEYS[2], 'sent', 0, 'sentsize', 0, 'size', size)
return redis.call('HINCRBY', KEYS[2], 'gen', 1)
"""

# KEYS: outbox, meta; ARGV: count. What a stream takes to write is what an acknowledgement may
# cover from now on (memorystore._Entry.written).
_UNSENT = """
local sent = tonumber(redis.call('HGET', KEYS[2], 'sent') or '0')
local items = redis.call('LRANGE', KEYS[1], sent, sent + tonumber(ARGV[1]) - 1)
if #items > 0 then
  local last = tonumber(string.match(items[#items], '^(%d+):'))
  if tonumber(redis.call('HGET', KEYS[2], 'written') or '0') < last then
    redis.call('HSET', KEYS[2], 'written', last)
  end
end
return items
"""

# KEYS: outbox, meta; ARGV: generation, first event id, count, bytes.
_MARK_SENT = """
if redis.call('HGET', KEYS[2], 'gen') ~= ARGV[1] then return 0 end
local sent = tonumber(redis.call('HGET', KEYS[2], 'sent'))
local first = redis.call('LINDEX', KEYS[1], sent)
if not first or string.match(first, '^(%d+):') ~= ARGV[2] then return 0 end
redis.call('HINCRBY', KEYS[2], 'sent', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'sentsize', ARGV[4])
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _item(event: Event) -> bytes:
    return b"%d:" % event.seq + event.data


def _event(item: bytes) -> Event:
    seq, _, data = item.partition(b":")
    return Event(int(seq), data)


def _fields(record: SessionRecord) -> list[str]:
    credential = record.credential
    return [
        "owner", record.owner,
        "hash", record.secret_hash,
        "kind", credential.kind if credential else "",
        "secret", credential.secret if credential else "",
        "bearer", "1" if record.bearer else "0",
        "handshaken", "1" if record.handshaken else "0",
        "created", repr(record.created),
        "ended", "1" if record.ended else "0",
    ]  # fmt: skip


def _record(sid: str, raw: list[Any]) -> SessionRecord:
    values = {_text(raw[i]): _text(raw[i + 1]) for i in range(0, len(raw), 2)}
    kind = values.get("kind", "")
    credential = (
        Credential("token" if kind == "token" else "session", values["secret"]) if kind else None
    )
    return SessionRecord(
        sid,
        values["owner"],
        values["hash"],
        credential,
        values["bearer"] == "1",
        values["handshaken"] == "1",
        float(values["created"]),
        values["ended"] == "1",
    )


class RedisStore:
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
        return f"{RECORD}{sid}", f"{OUTBOX}{sid}", f"{META}{sid}"

    async def _run(self, script: str, keys: list[str], *args: Any) -> Any:
        return await self._redis().eval(script, len(keys), *keys, *args)

    @staticmethod
    def _owned_ttl() -> int:
        return max(int(settings.LEARNPORTAL_A2E_IDLE_SECONDS), PENDING_SECONDS)

    async def create(self, record: SessionRecord, limit: int) -> bool:
        record_key, _, meta_key = self._keys(record.sid)
        keys = [record_key, meta_key, f"{OWNED}{record.owner}"]
        args = [limit, lifetime(record), self._owned_ttl(), record.sid, *_fields(record)]
        return bool(await self._run(_CREATE, keys, *args))

    async def get(self, sid: str, secret_hash: str | None = None) -> SessionRecord | None:
        idle = settings.LEARNPORTAL_A2E_IDLE_SECONDS
        raw = await self._run(_GET, list(self._keys(sid)), idle, secret_hash or "")
        return _record(sid, raw) if raw else None

    async def save(self, record: SessionRecord, limit: int) -> bool:
        old = await self._redis().hget(self._keys(record.sid)[0], "owner")
        if old is None:
            return True  # gone meanwhile: nothing to keep
        keys = [*self._keys(record.sid), f"{OWNED}{_text(old)}", f"{OWNED}{record.owner}"]
        ttl = lifetime(record) if record.credential is not None else 0
        args = [limit, ttl, self._owned_ttl(), record.sid, *_fields(record)]
        return bool(await self._run(_SAVE, keys, *args))

    async def end(self, sid: str) -> None:
        await self._run(_END, list(self._keys(sid)), ENDED_SECONDS, sid)

    async def backlog(self, sid: str) -> Backlog:
        _, outbox_key, meta_key = self._keys(sid)
        async with self._redis().pipeline(transaction=True) as pipe:
            pipe.llen(outbox_key)
            pipe.hmget(meta_key, ["sent", "size", "sentsize"])
            kept, counters = await pipe.execute()
        sent, size, sent_size = (int(value or 0) for value in counters)
        return Backlog(int(kept) - sent, size - sent_size, int(kept))

    async def push(self, sid: str, message: bytes) -> bool:
        args = [
            message,
            settings.LEARNPORTAL_A2E_MAX_QUEUED,
            settings.LEARNPORTAL_A2E_MAX_QUEUED_BYTES,
        ]
        return bool(await self._run(_PUSH, list(self._keys(sid)), *args))

    async def take_stream(self, sid: str, acknowledged: int | None) -> int:
        _, outbox_key, meta_key = self._keys(sid)
        covered = -1 if acknowledged is None else acknowledged
        return int(await self._run(_TAKE, [outbox_key, meta_key], covered))

    async def stream_generation(self, sid: str) -> int:
        value = await self._redis().hget(self._keys(sid)[2], "gen")
        return int(value) if value else 0

    async def unsent(self, sid: str, count: int) -> list[Event]:
        _, outbox_key, meta_key = self._keys(sid)
        items = await self._run(_UNSENT, [outbox_key, meta_key], count)
        return [_event(item) for item in items]

    async def mark_sent(self, sid: str, generation: int, events: list[Event]) -> None:
        if not events:
            return
        _, outbox_key, meta_key = self._keys(sid)
        size = sum(len(_item(event)) for event in events)
        args = [generation, events[0].seq, len(events), size]
        await self._run(_MARK_SENT, [outbox_key, meta_key], *args)

    async def footprint(self) -> Footprint:
        redis = self._redis()
        sessions = messages = size = 0
        async for key in redis.scan_iter(match=f"{PREFIX}*", count=1000):
            name = _text(key)
            if name.startswith(RECORD):
                sessions += 1
            elif name.startswith(OUTBOX):
                messages += int(await redis.llen(key))
            size += int(await redis.memory_usage(key) or 0)
        return Footprint(sessions, messages, size)
