"""A2E sessions of this process only: the default in-memory channel layer reaches no other."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from learnportal.a2e.sessions import (
    ENDED_SECONDS,
    Backlog,
    Event,
    Footprint,
    SessionRecord,
    lifetime,
    opens,
    over_bounds,
)

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass
class _Entry:
    record: SessionRecord
    expires: float
    outbox: deque[Event] = field(default_factory=deque)
    next_seq: int = 1
    sent: int = 0  # the outbox's first `sent` messages were written by the current stream
    # The highest event id a stream took to write: what an acknowledgement may cover. Counted
    # when taken, not when marked written: a client may read a batch, and reconnect saying so,
    # before its stream has marked it (a newer stream would otherwise write it again).
    written: int = 0
    size: int = 0
    sent_size: int = 0
    generation: int = 0


class MemoryStore:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._owned: dict[str, set[str]] = {}  # owner -> ids of its live sessions

    def _entry(self, sid: str) -> _Entry | None:
        """The session's entry, ended or not, unless it expired."""
        entry = self._entries.get(sid)
        if entry is not None and entry.expires <= self.clock():
            self._forget(sid, entry)
            return None
        return entry

    def _forget(self, sid: str, entry: _Entry) -> None:
        del self._entries[sid]
        self._disown(sid, entry.record.owner)

    def _disown(self, sid: str, owner: str) -> None:
        owned = self._owned.get(owner)
        if owned is not None:
            owned.discard(sid)
            if not owned:
                del self._owned[owner]

    def _live_count(self, owner: str) -> int:
        return sum(1 for sid in list(self._owned.get(owner, ())) if self._entry(sid) is not None)

    async def create(self, record: SessionRecord, limit: int) -> bool:
        now = self.clock()
        with self._lock:
            for sid, entry in [(s, e) for s, e in self._entries.items() if e.expires <= now]:
                self._forget(sid, entry)
            if self._live_count(record.owner) >= limit:
                return False
            self._entries[record.sid] = _Entry(replace(record), now + lifetime(record))
            self._owned.setdefault(record.owner, set()).add(record.sid)
            return True

    async def get(self, sid: str, secret_hash: str | None = None) -> SessionRecord | None:
        with self._lock:
            entry = self._entry(sid)
            if entry is None or not opens(entry.record, secret_hash):
                return None
            if entry.record.credential is not None and not entry.record.ended:
                entry.expires = self.clock() + lifetime(entry.record)
            return replace(entry.record)

    async def save(self, record: SessionRecord, limit: int) -> bool:
        with self._lock:
            entry = self._entry(record.sid)
            if entry is None or entry.record.ended:
                return True  # gone meanwhile: nothing to keep
            old_owner = entry.record.owner
            if record.owner != old_owner:
                if self._live_count(record.owner) >= limit:
                    return False
                self._disown(record.sid, old_owner)
                self._owned.setdefault(record.owner, set()).add(record.sid)
            entry.record = replace(record, ended=False)
            if record.credential is not None:
                entry.expires = self.clock() + lifetime(record)
            return True

    async def end(self, sid: str) -> None:
        with self._lock:
            entry = self._entry(sid)
            if entry is not None:
                entry.record.ended = True
                self._disown(sid, entry.record.owner)
                entry.expires = min(entry.expires, self.clock() + ENDED_SECONDS)

    async def backlog(self, sid: str) -> Backlog:
        with self._lock:
            entry = self._entry(sid)
            if entry is None:
                return Backlog(0, 0, 0)
            kept = len(entry.outbox)
            return Backlog(kept - entry.sent, entry.size - entry.sent_size, kept)

    async def push(self, sid: str, message: bytes) -> bool:
        with self._lock:
            entry = self._entry(sid)
            if entry is None or entry.record.ended:
                return False
            entry.outbox.append(Event(entry.next_seq, message))
            entry.next_seq += 1
            entry.size += len(message)
            while entry.sent > 0 and over_bounds(len(entry.outbox), entry.size):
                dropped = entry.outbox.popleft()
                entry.size -= len(dropped.data)
                entry.sent_size -= len(dropped.data)
                entry.sent -= 1
            return True

    async def take_stream(self, sid: str, acknowledged: int | None) -> int:
        with self._lock:
            entry = self._entry(sid)
            if entry is None:
                return 0
            if acknowledged is not None:
                covered = min(acknowledged, entry.written)
                while entry.outbox and entry.outbox[0].seq <= covered:
                    entry.size -= len(entry.outbox.popleft().data)
            entry.sent = entry.sent_size = 0
            entry.generation += 1
            return entry.generation

    async def stream_generation(self, sid: str) -> int:
        with self._lock:
            entry = self._entry(sid)
            return 0 if entry is None else entry.generation

    async def unsent(self, sid: str, count: int) -> list[Event]:
        with self._lock:
            entry = self._entry(sid)
            if entry is None:
                return []
            end = min(entry.sent + count, len(entry.outbox))
            events = [entry.outbox[i] for i in range(entry.sent, end)]
            if events:
                entry.written = max(entry.written, events[-1].seq)
            return events

    async def mark_sent(self, sid: str, generation: int, events: list[Event]) -> None:
        with self._lock:
            entry = self._entry(sid)
            if entry is None or not events or entry.generation != generation:
                return
            if entry.sent >= len(entry.outbox) or entry.outbox[entry.sent].seq != events[0].seq:
                return  # acknowledged or replaced meanwhile
            entry.sent += len(events)
            entry.sent_size += sum(len(e.data) for e in events)

    async def footprint(self) -> Footprint:
        with self._lock:
            entries = [e for s, e in list(self._entries.items()) if self._entry(s) is not None]
            messages = sum(len(e.outbox) for e in entries)
            return Footprint(len(entries), messages, sum(e.size for e in entries))
