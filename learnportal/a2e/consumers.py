"""`POST /a2e/session`, `POST /a2e/send`, `GET /a2e/stream`: the SDK's HTTPTransport, served.

`/send` answers the message at once (host.handle, over the one dispatch), pushes the replies to
the session's outbox and wakes the session's stream through the channel layer group
`a2e.<public id>`, which with REDIS_URL reaches every process. `/stream` writes the outbox in
order, one `id: <n>` and `data: <json>` event a message, and a keep-alive comment when idle; a
new stream of a session takes over from an older one, which ends, and writes again what its
`Last-Event-ID` does not acknowledge (sessions.py), so that a reply written to a connection as
it dropped is not lost. The stream also reads the outbox each keep-alive, so a wake-up lost on
the way costs a delay, never a message. A bound session's stream watches its credential
(core.accounts.watch), as a socket does: once the credential dies, the session ends with an
`unauthenticated` error on the stream, which then ends, idle or not. A server shutting down ends every open stream cleanly,
and refuses new ones with 503 (learnportal.lifespan).

A request names its session by the id `POST /session` answered, whose secret the store checks;
a session bound by an `Authorization` header needs that header on every request.

Refusals of the transport itself (no or unknown session, a credential that does not match, a
body too large for a session not yet bound, a full outbox, too many sessions) are HTTP statuses
with `{"ok": false, "code", "message"}`; a 429 and a 503 carry `Retry-After`. A bound session's
over-long body is refused as its messages are, by an `error` on the stream (SendConsumer). Every answer carries the portal's
Content-Security-Policy and `nosniff`, which Django's middleware gives its own answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import orjson
from asgiref.sync import sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.http import AsyncHttpConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from redis.exceptions import RedisError

from core.accounts.credentials import principals
from core.accounts.watch import CredentialWatch, principal_now
from core.ratelimit import retry_after_for
from learnportal import lifespan
from learnportal.a2e import host, messages, sessions, truncated
from learnportal.a2e.scope import (
    Refused,
    client_address,
    header,
    header_credential,
    host_allowed,
    last_event_id,
    security_headers,
)
from learnportal.a2e.sessions import SessionRecord, store
from learnportal_protocol.errors import ErrorCode

if TYPE_CHECKING:
    from core.accounts.credentials import Credential
    from core.accounts.principals import Principal

logger = logging.getLogger(__name__)

STORE_DOWN = "Sessions are unavailable for a moment (their store is unreachable); retry."
SHUTTING_DOWN = "This server is shutting down: reconnect in a moment (to another, if there is one)."
STREAM_BATCH = 100  # messages written to the stream per read of the outbox
STOP_SECONDS = 10  # how long a disconnected stream waits for its pump to finish a step
WAKE = "a2e.wake"
LAYER_SECONDS = 2  # the longest a wake-up waits for the channel layer: it is a shortcut only
BODY_TOO_LARGE = "The body is over the size limit."
UNKNOWN_SESSION = "Unknown or ended session: POST /a2e/session for a new one."
BEARER_NEEDED = "This session was opened with an Authorization header: send it on every request."
OUTBOX_FULL = "The session's stream is not being read: its outbox is full."
TOO_MANY_NEW = "Too many new sessions; retry later."
TOO_MANY_REQUESTS = "Too many requests without a valid session or credential; retry later."
TOO_MANY_SESSIONS = (
    "This credential or address holds as many sessions as it may: shut one down, or let one expire."
)


def group(sid: str) -> str:
    return f"a2e.{sid}"


def event(message: sessions.Event) -> bytes:
    """One server-sent event: its id, for a reconnecting stream to say what it has read."""
    return b"id: %d\ndata: %s\n\n" % (message.seq, message.data)


async def wake(sid: str) -> None:
    """Tell the session's stream, in whichever process, to read its outbox now."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async with asyncio.timeout(LAYER_SECONDS):
            await layer.group_send(group(sid), {"type": WAKE})
    except Exception:  # the stream reads its outbox each keep-alive anyway: later, not lost
        logger.warning("could not wake the A2E stream of a session", exc_info=True)


class A2EConsumer(AsyncHttpConsumer):  # type: ignore[misc]  # channels has no types
    """The common part: method, body size, session and credential checks, JSON answers."""

    method = "POST"
    channel_layer_alias: str | None = None  # the stream joins the layer itself (listen)
    size = 0

    body_limit: int | None = None
    record: SessionRecord | None = None
    lookup_done = False
    head = b""  # the body's first bytes, kept to name the request an over-long body refuses

    async def http_request(self, message: dict[str, Any]) -> None:
        if self.body_limit is None:
            self.body_limit = await self.max_body_bytes()
        chunk = message.get("body", b"")
        self.size += len(chunk)
        if len(self.head) < truncated.HEAD_BYTES:
            self.head += chunk[: truncated.HEAD_BYTES - len(self.head)]
        if self.size > self.body_limit:
            try:
                await self.too_large()
            except (RedisError, OSError) as exc:
                logger.warning("the A2E session store is unreachable: %s", exc)
                await self.refuse(Refused(503, ErrorCode.UNAVAILABLE, STORE_DOWN))
            raise StopConsumer()
        await super().http_request(message)

    async def too_large(self) -> None:
        """Answer a body over the size limit (the rest of it is never read)."""
        await self.refuse(Refused(413, ErrorCode.TOO_LARGE, BODY_TOO_LARGE))

    async def max_body_bytes(self) -> int:
        """The most this request may send: a caller no credential vouches for gets little."""
        return settings.LEARNPORTAL_MAX_BODY_BYTES

    async def handle(self, body: bytes) -> None:
        try:
            try:
                self.check_request()
                await self.answer(body)
            except (RedisError, OSError) as exc:
                logger.warning("the A2E session store is unreachable: %s", exc)
                raise Refused(503, ErrorCode.UNAVAILABLE, STORE_DOWN) from exc
        except Refused as refusal:
            await self.refuse(refusal)

    def check_request(self) -> None:
        if not host_allowed(self.scope):
            raise Refused(400, ErrorCode.INVALID, "The Host header is not an allowed host.")
        if self.scope["method"] != self.method:
            raise Refused(405, ErrorCode.INVALID, f"Use {self.method}.")

    async def answer(self, body: bytes) -> None:
        raise NotImplementedError

    async def refuse(self, refusal: Refused) -> None:
        body = {"ok": False, "code": refusal.code.value, "message": refusal.message}
        extra = []
        if refusal.retry_after is not None:
            extra.append((b"retry-after", str(refusal.retry_after).encode()))
        await self.json(refusal.status, body, extra)

    async def json(
        self, status: int, body: dict[str, Any], extra: list[tuple[bytes, bytes]] | None = None
    ) -> None:
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
        await self.send_response(
            status,
            orjson.dumps(body),
            headers=[*headers, *security_headers(self.scope), *(extra or [])],
        )

    def presented_id(self) -> str:
        return (header(self.scope, b"x-session-id") or b"").decode("latin-1").strip()

    async def session(self) -> tuple[SessionRecord, Credential | None]:
        """The request's session (ended too) and bearer; Refused if the id does not open a
        session, or the bearer is missing or another than the one it is bound to."""
        credential = header_credential(self.scope)
        record = await self.looked_up()
        if record is None:
            await self.count_unauthenticated()
            raise Refused(404, ErrorCode.NOT_FOUND, UNKNOWN_SESSION)
        if record.bearer and credential is None:
            await self.count_unauthenticated()
            raise Refused(401, ErrorCode.UNAUTHENTICATED, BEARER_NEEDED)
        if credential is not None and record.credential not in (None, credential):
            raise Refused(403, ErrorCode.FORBIDDEN, host.OTHER_CREDENTIAL)
        return record, credential

    async def looked_up(self) -> SessionRecord | None:
        """The session the request names, read from the store once a request."""
        if not self.lookup_done:
            parts = sessions.split_session_id(self.presented_id())
            secret_hash = sessions.hash_secret(parts[1]) if parts else ""
            self.record = await store().get(parts[0], secret_hash) if parts else None
            self.lookup_done = True  # only once it answered: a store error is raised again
        return self.record

    async def count_unauthenticated(self) -> None:
        """Count a request that no credential vouches for under its client's address."""
        key = sessions.address_owner(client_address(self.scope))
        retry_after = await sync_to_async(retry_after_for)(key)
        if retry_after is not None:
            raise Refused(429, ErrorCode.RATE_LIMITED, TOO_MANY_REQUESTS, retry_after)

    async def live_session(self) -> tuple[SessionRecord, Credential | None]:
        record, credential = await self.session()
        if record.ended:
            raise Refused(404, ErrorCode.NOT_FOUND, UNKNOWN_SESSION)
        return record, credential


class SessionConsumer(A2EConsumer):
    """A new session, bound to the request's bearer if it carries one (the SDK's does not)."""

    async def max_body_bytes(self) -> int:
        return sessions.UNBOUND_BODY_BYTES  # the body is not read

    async def answer(self, body: bytes) -> None:
        credential = header_credential(self.scope)
        if credential is None:
            owner = sessions.address_owner(client_address(self.scope))
        else:
            principal: Principal | None = await sync_to_async(
                principals.principal, thread_sensitive=True
            )(credential)
            if principal is None:
                await self.count_unauthenticated()
                raise Refused(401, ErrorCode.UNAUTHENTICATED, host.BAD_CREDENTIAL)
            owner = principal.key
        retry_after = await sync_to_async(retry_after_for)(owner)
        if retry_after is not None:
            raise Refused(429, ErrorCode.RATE_LIMITED, TOO_MANY_NEW, retry_after)
        record, session_id = sessions.new_session(
            credential, owner=owner, bearer=credential is not None
        )
        if not await store().create(record, sessions.session_limit(owner)):
            raise Refused(429, ErrorCode.RATE_LIMITED, TOO_MANY_SESSIONS)
        await self.json(200, {"session_id": session_id})


class SendConsumer(A2EConsumer):
    """One message: answered now, its replies on the stream."""

    async def max_body_bytes(self) -> int:
        # Until a credential binds the session, its messages are handshakes, pings and refusals.
        try:
            record = await self.looked_up()
        except (RedisError, OSError):
            record = None  # answered as unavailable once the body is read
        if record is None or record.credential is None:
            return sessions.UNBOUND_BODY_BYTES
        return settings.LEARNPORTAL_MAX_BODY_BYTES

    async def too_large(self) -> None:
        """On a bound session, the refusal of an over-long body is an `error` on the stream and
        the `/send` a 200, as for any refused message: the SDK's HTTPTransport, which gives up
        on a session after three statuses other than 2xx, goes on (docs/extensions.md)."""
        try:
            record, _ = await self.session()
            if record.ended or record.credential is None:
                raise Refused(413, ErrorCode.TOO_LARGE, BODY_TOO_LARGE)  # not yet bound: little
            kept = store()
            if sessions.is_full(await kept.backlog(record.sid)):
                raise Refused(429, ErrorCode.RATE_LIMITED, OUTBOX_FULL)
        except Refused as refusal:
            await self.refuse(refusal)
            return
        req_id = truncated.request_id_of_head(self.head)
        await kept.push(
            record.sid, orjson.dumps(messages.error(ErrorCode.TOO_LARGE, BODY_TOO_LARGE, req_id))
        )
        await wake(record.sid)
        await self.json(200, {"ok": True})

    async def answer(self, body: bytes) -> None:
        record, credential = await self.live_session()
        kept = store()
        if sessions.is_full(await kept.backlog(record.sid)):
            raise Refused(429, ErrorCode.RATE_LIMITED, OUTBOX_FULL)
        outcome = await sync_to_async(host.handle, thread_sensitive=True)(
            record, body, credential, self.presented_id()
        )
        replies = outcome.replies
        if outcome.record != record:
            limit = sessions.session_limit(outcome.record.owner)
            if not await kept.save(outcome.record, limit):
                replies = outcome.over_limit
        for reply in replies:
            await kept.push(record.sid, orjson.dumps(reply))
        if outcome.ended:
            await kept.end(record.sid)
        await wake(record.sid)
        await self.json(200, {"ok": True})


class StreamConsumer(A2EConsumer):
    """The session's outbox as server-sent events, kept open until the session or agent ends."""

    method = "GET"
    sid = ""
    pump: asyncio.Task[None] | None = None
    listener: asyncio.Task[None] | None = None
    channel = ""  # its name on the channel layer, once it joined the session's group
    closed = False
    watch: CredentialWatch | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.woken = asyncio.Event()

    async def http_request(self, message: dict[str, Any]) -> None:
        # AsyncHttpConsumer ends the consumer when `handle` returns; a stream must outlive it,
        # reading its group's wake-ups and the client's disconnect.
        if message.get("more_body"):
            return
        try:
            self.check_request()
            if lifespan.stopping():
                raise Refused(503, ErrorCode.UNAVAILABLE, SHUTTING_DOWN)
            acknowledged = last_event_id(self.scope)
            try:
                self.sid = await self.readable_session()
                generation = await store().take_stream(self.sid, acknowledged)
            except (RedisError, OSError) as exc:
                raise Refused(503, ErrorCode.UNAVAILABLE, STORE_DOWN) from exc
        except Refused as refusal:
            await self.refuse(refusal)
            raise StopConsumer() from None
        await wake(self.sid)  # an older stream of this session sees it is replaced, and ends
        await self.send_headers(
            status=200,
            headers=[
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-store"),
                (b"x-accel-buffering", b"no"),
                *security_headers(self.scope),
            ],
        )
        await self.send_body(b": connected\n\n", more_body=True)
        lifespan.watch(self.woken)  # a shutdown ends the stream, cleanly (learnportal.lifespan)
        self.listener = asyncio.ensure_future(self.listen())
        self.pump = asyncio.ensure_future(self.run(generation))

    async def readable_session(self) -> str:
        """The session's public id; one that ended may still be read until its outbox is
        written (once: an ended session's stream does not write again what it wrote)."""
        record, _ = await self.session()
        if record.ended and not (await store().backlog(record.sid)).unsent:
            raise Refused(404, ErrorCode.NOT_FOUND, UNKNOWN_SESSION)
        return record.sid

    async def listen(self) -> None:
        """Wake the pump at each wake-up sent to the session's group. The channel layer is a
        shortcut, joined here rather than by Channels so that its failure is no 500: without
        it the pump still reads the outbox at each keep-alive."""
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            channel: str = await layer.new_channel()
            async with asyncio.timeout(LAYER_SECONDS):
                await layer.group_add(group(self.sid), channel)
            self.channel = channel
            while not self.closed:
                if (await layer.receive(channel)).get("type") == WAKE:
                    self.woken.set()
        except Exception as exc:
            logger.warning("an A2E stream is not woken by the channel layer: %r", exc)

    async def run(self, generation: int) -> None:
        kept = store()
        keepalive = settings.LEARNPORTAL_A2E_KEEPALIVE_SECONDS
        try:
            while not self.closed and not lifespan.stopping():
                self.woken.clear()
                if await kept.stream_generation(self.sid) != generation:
                    break  # expired, or taken over by a newer stream
                batch = await kept.unsent(self.sid, STREAM_BATCH)
                if batch and not self.closed:
                    await self.send_body(b"".join(map(event, batch)), more_body=True)
                    await kept.mark_sent(self.sid, generation, batch)
                    continue
                # Also restarts an open session's idle time: a stream being read is not idle.
                record = await kept.get(self.sid)
                if record is None or record.ended:
                    break  # ended (and its outbox written) or expired
                await self.watch_credential(record)
                if not await self.sleep(keepalive) and not self.closed:
                    await self.send_body(b": keep-alive\n\n", more_body=True)
            if not self.closed:
                await self.send_body(b"")
        except Exception:  # the store failed, or the client went away mid-write
            logger.warning("an A2E stream ended on an error", exc_info=True)
            with contextlib.suppress(Exception):
                await self.send_body(b"")  # end the response: the agent reconnects

    async def watch_credential(self, record: SessionRecord) -> None:
        """Once the session is bound, end it as soon as its credential dies, idle or not, as a
        socket is closed (core.accounts.watch)."""
        if self.watch is not None or record.credential is None or not record.handshaken:
            return
        principal = await principal_now(record.credential)
        if principal is None:
            await self.credential_ended()
            return
        self.watch = CredentialWatch(record.credential, principal, self.credential_ended)
        self.watch.start()

    async def credential_ended(self) -> None:
        """End the session with the refusal its next message would get (host.CREDENTIAL_ENDED),
        which the pump writes before the stream ends."""
        refusal = messages.error(ErrorCode.UNAUTHENTICATED, host.CREDENTIAL_ENDED)
        try:
            kept = store()
            if await kept.push(self.sid, orjson.dumps(refusal)):  # not if it ended already
                await kept.end(self.sid)
        except (RedisError, OSError):  # its next message is refused all the same
            logger.warning("could not end the A2E session of a dead credential", exc_info=True)
        self.woken.set()

    async def sleep(self, seconds: float) -> bool:
        """Wait to be woken (True) or `seconds` (False)."""
        try:
            async with asyncio.timeout(seconds):
                await self.woken.wait()
        except TimeoutError:
            return False
        return True

    async def disconnect(self) -> None:
        # The pump is told to stop rather than cancelled: a cancel landing inside a Redis call
        # could hang it, or leave a written batch unmarked (written again to the next stream).
        self.closed = True
        lifespan.unwatch(self.woken)
        if self.watch is not None:
            await self.watch.stop()
        if self.pump is not None:
            self.woken.set()
            done, _ = await asyncio.wait({self.pump}, timeout=STOP_SECONDS)
            if not done:
                self.pump.cancel()
        if self.listener is not None:
            self.listener.cancel()
        layer = get_channel_layer()
        if self.channel and layer is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(LAYER_SECONDS):
                    await layer.group_discard(group(self.sid), self.channel)
