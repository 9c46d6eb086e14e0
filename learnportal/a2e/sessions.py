"""Where A2E sessions live: a record (who it is bound to, whether it shook hands) and an outbox.

A reply is pushed to its session's outbox by whichever process served the `/send`; the process
holding the session's `/stream` writes the outbox in order, each message an event with its
sequence number as `id:`. A written message stays in the outbox until a stream's `Last-Event-ID`
acknowledges it, so that one written to a connection as it dropped is written again to the next
stream (the SDK, which sends no `Last-Event-ID`, gets it twice, the same bytes, and drops the
reply whose `req_id` it no longer waits for); when the outbox is over its bounds, the oldest
written messages go first. The outbox is a store, not a channel: the Redis channel layer is
publish/subscribe, so a reply sent while the agent's stream was reconnecting would be lost; the
channel layer only wakes the stream up (consumers.wake). Without REDIS_URL everything is in this
process (memorystore), with REDIS_URL in Redis (redisstore), so that `/send` and `/stream` of one
session may be served by different processes.

The session id answered by `POST /a2e/session` is `<public id>.<secret>`: the public id names the
session in the store, the logs and the channel group; the store keeps only the secret's hash, so
that the id of a session is a credential of its own (the SDK's HTTPTransport sends nothing else).

A bound session ends when idle for LEARNPORTAL_A2E_IDLE_SECONDS (no request, no open stream); one
not yet bound to a credential PENDING_SECONDS after it was created, whatever it sends. Each
principal holds at most LEARNPORTAL_A2E_MAX_SESSIONS sessions at once, each client address at
most LEARNPORTAL_A2E_MAX_UNBOUND_SESSIONS not yet bound.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

from django.conf import settings

from core.ratelimit import ADDRESS_PREFIX, key_of_address

if TYPE_CHECKING:
    from core.accounts.credentials import Credential

PENDING_SECONDS = 60  # an unbound session must shake hands (or be bound by its header) by then
ENDED_SECONDS = 60  # how long an ended session's stream may still drain its outbox
SEPARATOR = "."  # between the public id and the secret of a session id
SESSION_ID_LENGTH = 100  # longer than any id this host answers: not looked up
UNBOUND_BODY_BYTES = 64 * 1024  # what a request may send with no credential: a handshake fits


def address_owner(address: str) -> str:
    """Whose count a session without a credential is in, and its messages' rate limit key."""
    return key_of_address(address)


@dataclass
class SessionRecord:
    sid: str  # the public id
    owner: str  # the principal's key once bound, else address_owner(client address)
    secret_hash: str = ""
    credential: Credential | None = None
    bearer: bool = False  # bound by an Authorization header: every request must carry it
    handshaken: bool = False
    created: float = field(default_factory=time.time)
    ended: bool = False


class Event(NamedTuple):
    seq: int  # the event's `id:`, monotonic in its session
    data: bytes


class Backlog(NamedTuple):
    unsent: int  # messages no stream has written yet
    unsent_bytes: int
    kept: int  # every message kept: unsent, or written and not acknowledged


class Footprint(NamedTuple):
    """What a store holds, for bounds and for an operator."""

    sessions: int
    messages: int
    bytes: int


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_session(
    credential: Credential | None, *, owner: str, bearer: bool = False
) -> tuple[SessionRecord, str]:
    """A new session's record and the session id to answer, shown once."""
    secret = secrets.token_urlsafe(24)
    record = SessionRecord(uuid.uuid4().hex, owner, hash_secret(secret), credential, bearer)
    return record, f"{record.sid}{SEPARATOR}{secret}"


def split_session_id(value: str) -> tuple[str, str] | None:
    """(public id, secret) of a presented session id; None if it is not of that form."""
    if len(value) > SESSION_ID_LENGTH:
        return None
    sid, separator, secret = value.partition(SEPARATOR)
    return (sid, secret) if separator and sid and secret else None


def opens(record: SessionRecord, secret_hash: str | None) -> bool:
    return secret_hash is None or hmac.compare_digest(record.secret_hash, secret_hash)


def session_limit(owner: str) -> int:
    limit: int = (
        settings.LEARNPORTAL_A2E_MAX_UNBOUND_SESSIONS
        if owner.startswith(ADDRESS_PREFIX)
        else settings.LEARNPORTAL_A2E_MAX_SESSIONS
    )
    return limit


def lifetime(record: SessionRecord) -> int:
    """Seconds a session lives from now on: restarted by each use once bound, else never."""
    idle: int = settings.LEARNPORTAL_A2E_IDLE_SECONDS
    return idle if record.credential is not None else min(idle, PENDING_SECONDS)


def over_bounds(count: int, size: int) -> bool:
    """Whether an outbox of `count` messages and `size` bytes holds more than it may."""
    return (
        count > settings.LEARNPORTAL_A2E_MAX_QUEUED
        or size > settings.LEARNPORTAL_A2E_MAX_QUEUED_BYTES
    )


def is_full(backlog: Backlog) -> bool:
    """No room for one more reply: the session's stream is not being read."""
    return (
        backlog.unsent >= settings.LEARNPORTAL_A2E_MAX_QUEUED
        or backlog.unsent_bytes >= settings.LEARNPORTAL_A2E_MAX_QUEUED_BYTES
    )


class SessionStore(Protocol):
    async def create(self, record: SessionRecord, limit: int) -> bool:
        """Keep a new session, unless its owner holds `limit` live sessions already."""

    async def get(self, sid: str, secret_hash: str | None = None) -> SessionRecord | None:
        """The session (ended too, until its outbox is gone), a bound one's idle time restarted;
        None, and nothing restarted, if `secret_hash` is given and is not the session's."""

    async def save(self, record: SessionRecord, limit: int) -> bool:
        """Keep the record; False if it moves to an owner holding `limit` sessions already."""

    async def end(self, sid: str) -> None:
        """Refuse the session from now on; its stream still writes what its outbox holds."""

    async def backlog(self, sid: str) -> Backlog: ...

    async def push(self, sid: str, message: bytes) -> bool:
        """Append to the outbox (the oldest written go, past its bounds); False if ended."""

    async def take_stream(self, sid: str, acknowledged: int | None) -> int:
        """Make the caller the session's one stream: drop what `acknowledged` (an event id)
        covers, write again what is left; its generation (an older stream stops), 0 if gone."""

    async def stream_generation(self, sid: str) -> int: ...

    async def unsent(self, sid: str, count: int) -> list[Event]:
        """The first `count` messages no stream has written yet."""

    async def mark_sent(self, sid: str, generation: int, events: list[Event]) -> None:
        """`events`, from `unsent`, were written by the stream of `generation`."""

    async def footprint(self) -> Footprint: ...


_store: SessionStore | None = None


def store() -> SessionStore:
    """The store of the settings: Redis when REDIS_URL is set, else this process."""
    global _store
    if _store is None:
        if settings.REDIS_URL:
            from learnportal.a2e.redisstore import RedisStore

            _store = RedisStore(settings.REDIS_URL)
        else:
            from learnportal.a2e.memorystore import MemoryStore

            _store = MemoryStore()
    return _store
