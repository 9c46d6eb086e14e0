"""WebSocket sessions on `/ws/learn/`: many requests in flight, replies matched by `req_id`.

`LearnSession` (blocking) sends a whole list before reading (`pipeline`); `AsyncLearnSession`
keeps one reader task that hands each reply to the request awaiting its `req_id`, so any number
of `await session.send(...)` may run at once (`asyncio.gather`). A `rate_limited` or
`unavailable` frame is retried with the same frame after its `retry_after`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic

from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

from learnportal_client.calls import AsyncLearnCalls, LearnCalls
from learnportal_client.closing import Closing
from learnportal_client.errors import (
    InvalidReplyError,
    LearnError,
    UnauthenticatedError,
    UnreachableError,
)
from learnportal_client.retry import Deadline, Sleep
from learnportal_client.wire import decode, encode, request_json, response_of
from learnportal_protocol.messages import Envelope, Response

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from types import TracebackType

    from learnportal_client.retry import Retry

CLOSE_UNAUTHENTICATED = 4401
MAX_FRAME = 64 * 1024 * 1024  # the host's default LEARNPORTAL_MAX_BODY_BYTES


def dead_credential() -> UnauthenticatedError:
    return UnauthenticatedError("the host closed the socket: bad or dead credential")


def closed(exc: ConnectionClosed) -> LearnError:
    code = exc.rcvd.code if exc.rcvd is not None else None
    if code == CLOSE_UNAUTHENTICATED:
        return dead_credential()
    return UnreachableError(f"the socket closed ({code})")


@contextlib.contextmanager
def reaching(url: str) -> Iterator[None]:
    """Opening a socket: no host, no answer or no WebSocket there is `unreachable`."""
    try:
        yield
    except (OSError, TimeoutError, InvalidHandshake) as exc:
        raise UnreachableError(f"{url}: {exc!r}") from None


def outcome(request: Envelope, body: Any) -> Response:
    if isinstance(body, dict) and body.get("type") == "learn/error":
        raise LearnError.of_envelope(body)
    return response_of(request.type, request.id, 200, body)


class _Session(Generic[Sleep]):
    """What both sessions hold alike: the socket's address and credential, the retry, the limit."""

    def __init__(
        self,
        url: str,
        token: str,
        *,
        retry: Retry,
        max_batch: int,
        sleep: Sleep,
        deadline: float | None = None,
        open_timeout: float = 30.0,
    ) -> None:
        self._url = url
        self._token = token
        self._retry = retry
        self._deadline = deadline
        self._max_batch = max_batch
        self._sleep = sleep
        self._open_timeout = open_timeout
        self._start()

    def _start(self) -> None:
        """What a session of this kind does when made."""

    def _connect_options(self) -> dict[str, Any]:
        return {
            "additional_headers": {"Authorization": f"Bearer {self._token}"},
            "open_timeout": self._open_timeout,
            "max_size": MAX_FRAME,
        }


class LearnSession(_Session[Callable[[float], None]], LearnCalls, Closing):
    """A blocking session, open once made: `with client.session() as s: s.pipeline([...])`."""

    def _start(self) -> None:
        self._stack = contextlib.ExitStack()
        with reaching(self._url):
            conn = connect(self._url, **self._connect_options())
        self._conn: ClientConnection = self._stack.enter_context(conn)

    def close(self) -> None:
        self._stack.close()

    def batch_limit(self) -> int:
        return self._max_batch

    def send(self, request: Envelope) -> Response:
        (result,) = self.pipeline([request])
        if isinstance(result, LearnError):
            raise result
        return result

    def pipeline(self, requests: Sequence[Envelope]) -> list[Response | LearnError]:
        """Send every request, then read the replies; each one's response or error, in order."""
        by_id = {r.id: r for r in requests}
        if len(by_id) != len(requests):
            raise ValueError("requests in one pipeline need distinct ids")
        frames = {r.id: encode(request_json(r)).decode() for r in requests}
        results: dict[str, Response | LearnError] = {}
        waiting, tries, deadline = list(by_id), 0, Deadline.after(self._deadline)
        while waiting:
            tries += 1
            for request_id in waiting:
                self._send(frames[request_id])
            for _ in waiting:
                body = self._receive(deadline)
                request = by_id.get(body.get("req_id", "")) if isinstance(body, dict) else None
                if request is None:
                    raise InvalidReplyError(f"a reply to no request sent: {body!r}")
                try:
                    results[request.id] = outcome(request, body)
                except LearnError as error:
                    results[request.id] = error
            waits = {rid: self._wait(results[rid], tries) for rid in waiting}
            waiting = [rid for rid, wait in waits.items() if wait is not None]
            longest = max((w for w in waits.values() if w is not None), default=0.0)
            if waiting and not deadline.allows(longest):
                break  # each keeps its last error
            if waiting:
                self._sleep(longest)
        return [results[r.id] for r in requests]

    def _wait(self, result: Response | LearnError, tries: int) -> float | None:
        if not isinstance(result, LearnError):
            return None
        return self._retry.wait(result, tries, resend_safe=False)

    def _send(self, frame: str) -> None:
        try:
            self._conn.send(frame)
        except ConnectionClosed as exc:
            raise closed(exc) from None

    def _receive(self, deadline: Deadline) -> Any:
        try:
            return decode(self._conn.recv(timeout=deadline.left()))
        except ConnectionClosed as exc:
            raise closed(exc) from None
        except TimeoutError:
            # A reply may still come, and would be read as the next call's: start afresh.
            self.close()
            raise UnreachableError("no reply before the deadline; the session is closed") from None


class AsyncLearnSession(_Session[Callable[[float], Awaitable[None]]], AsyncLearnCalls):
    """An awaited session, open in its `async with` (or after `open()`):
    `async with await client.session() as s: await asyncio.gather(...)`."""

    def _start(self) -> None:
        self._conn: AsyncConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiting: dict[str, asyncio.Future[Any]] = {}

    async def __aenter__(self) -> AsyncLearnSession:
        await self.open()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def open(self) -> None:
        with reaching(self._url):
            self._conn = await async_connect(self._url, **self._connect_options())
        self._reader = asyncio.create_task(self._read(self._conn))

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
        if self._reader is not None:
            await self._reader

    async def batch_limit(self) -> int:
        return self._max_batch

    async def send(self, request: Envelope) -> Response:
        if self._conn is None:
            raise RuntimeError("the session is not open: use `async with`")
        if request.id in self._waiting:
            raise ValueError(f"a request with id {request.id!r} is already in flight")
        frame = encode(request_json(request)).decode()
        tries, deadline = 0, Deadline.after(self._deadline)
        while True:
            tries += 1
            reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._waiting[request.id] = reply
            try:
                await self._conn.send(frame)
            except ConnectionClosed as exc:
                self._waiting.pop(request.id, None)
                if reply.done():
                    reply.exception()  # the reader's verdict: this one says why, too
                else:
                    reply.cancel()
                raise closed(exc) from None
            try:
                return outcome(request, await self._reply(request.id, reply, deadline))
            except LearnError as error:
                wait = self._retry.wait(error, tries, resend_safe=False)
                if wait is None or not deadline.allows(wait):
                    raise
                await self._sleep(wait)

    async def _reply(self, request_id: str, reply: asyncio.Future[Any], deadline: Deadline) -> Any:
        try:
            return await asyncio.wait_for(reply, deadline.left())
        except TimeoutError:
            self._waiting.pop(request_id, None)  # a late reply is dropped
            raise UnreachableError(f"no reply to {request_id!r} before the deadline") from None

    async def pipeline(self, requests: Sequence[Envelope]) -> list[Response | LearnError]:
        """All in flight at once; each one's response or error, in order."""
        results = await asyncio.gather(*(self.send(r) for r in requests), return_exceptions=True)
        out: list[Response | LearnError] = []
        for result in results:
            if isinstance(result, Response | LearnError):
                out.append(result)
            else:
                raise result
        return out

    async def _read(self, conn: AsyncConnection) -> None:
        error: LearnError | None = None
        try:
            async for frame in conn:
                body = decode(frame)
                request_id = body.get("req_id", "") if isinstance(body, dict) else ""
                reply = self._waiting.pop(request_id, None)
                if reply is not None and not reply.done():
                    reply.set_result(body)
        except ConnectionClosed as exc:
            error = closed(exc)
        if error is None and conn.close_code == CLOSE_UNAUTHENTICATED:
            error = dead_credential()
        for reply in self._waiting.values():
            if not reply.done():
                reply.set_exception(error or UnreachableError("the socket closed"))
        self._waiting.clear()
