"""`LearnClient` and `AsyncLearnClient`: learn/* and the REST side agents use, over HTTP."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from pydantic import BaseModel

from learnportal.protocol.messages import Capability, Envelope, Response
from learnportal_client.calls import RESEND_SAFE, AsyncLearnCalls, LearnCalls, chunks
from learnportal_client.errors import LearnError
from learnportal_client.rest import QueuedTurn, Routing, RunOutcome, TurnPage, TurnsCreated
from learnportal_client.retry import Retry
from learnportal_client.wire import (
    answer_of,
    decode,
    encode,
    error_of,
    item_json,
    model_of,
    request_json,
    response_of,
    unreachable,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
    from types import TracebackType

    from learnportal_client.buffer import LearnBuffer, Unsent
    from learnportal_client.session import AsyncLearnSession, LearnSession

Answer = TypeVar("Answer", bound=BaseModel)
Result = TypeVar("Result")
LEARN = "/api/learn/"
JSON = {"Content-Type": "application/json"}


def discovery_of(body: Any) -> Capability:
    """`GET /api/learn/` read leniently: a host without `max_batch` gets the default (1000)."""
    data = body if isinstance(body, dict) else {}
    known = {k: v for k, v in data.items() if k in Capability.model_fields}
    return Capability.model_validate(known, strict=False)


def socket_url(base_url: str) -> str:
    scheme, _, rest = base_url.rstrip("/").partition("://")
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws/learn/"


def turns_query(**filters: str | int | bool | None) -> dict[str, str]:
    return {
        key: str(value).lower() if isinstance(value, bool) else str(value)
        for key, value in filters.items()
        if value not in (None, "")
    }


class _Settings:
    """What both clients hold: where, as whom, how to retry, and the batch limit once known."""

    def __init__(
        self, base_url: str, token: str, retry: Retry | None, max_batch: int | None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retry = retry or Retry()
        self._max_batch = max_batch

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class LearnClient(LearnCalls):
    """A blocking client: `LearnClient("http://127.0.0.1:8000", token)`.

    Every learn/* call retries `rate_limited` and `unavailable` after the host's `Retry-After`,
    resending the same bytes (same envelope id, same item ids), so a retry is never stored twice.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        retry: Retry | None = None,
        timeout: float = 30.0,
        max_batch: int | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._settings = _Settings(base_url, token, retry, max_batch)
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=self._settings.base_url,
            headers=self._settings.headers,
            timeout=timeout,
            transport=transport,
        )

    def __enter__(self) -> LearnClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # --- learn/* -------------------------------------------------------------------------------

    def send(self, request: Envelope) -> Response:
        body = encode(request_json(request))

        def attempt() -> Response:
            reply = self._request("POST", LEARN, content=body, headers=JSON)
            if reply.status_code != 200:
                raise error_of(reply.status_code, decode(reply.content), _retry_after(reply))
            return response_of(request.type, request.id, 200, decode(reply.content))

        return self._retrying(attempt, resend_safe=request.type in RESEND_SAFE)

    def discover(self) -> Capability:
        """`GET /api/learn/`: the capability, its messages and the host's `max_batch`."""

        def attempt() -> Capability:
            reply = self._request("GET", LEARN)
            if reply.status_code != 200:
                raise error_of(reply.status_code, decode(reply.content), _retry_after(reply))
            return discovery_of(decode(reply.content))

        return self._retrying(attempt, resend_safe=True)

    def batch_limit(self) -> int:
        if self._settings._max_batch is None:
            self._settings._max_batch = self.discover().max_batch
        return self._settings._max_batch

    # --- REST ------------------------------------------------------------------------------------

    def routing(self) -> Routing:
        """`GET /api/routing/`: the weights to choose components by (see `choose`)."""
        return self._rest(Routing, "GET", "/api/routing/")

    def submit_turns(self, turns: Iterable[QueuedTurn | Mapping[str, Any]]) -> TurnsCreated:
        """`POST /api/turns/`: put turns in the annotators' queue (split at the batch limit)."""
        items = [item_json(model_of(QueuedTurn, t)) for t in turns]
        answers = [
            self._rest(TurnsCreated, "POST", "/api/turns/", json={"turns": part})
            for part in chunks(items, self.batch_limit())
        ]
        return TurnsCreated(
            received=sum(a.received for a in answers), created=sum(a.created for a in answers)
        )

    def turns(self, cursor: str = "", **filters: str | int | bool | None) -> TurnPage:
        """`GET /api/turns/` with its filters; pass a page's `next` as `cursor` for the next."""
        if cursor:
            return self._rest(TurnPage, "GET", cursor)
        return self._rest(TurnPage, "GET", "/api/turns/", params=turns_query(**filters))

    def report_run(
        self, step_id: str, description: str, edits: Sequence[Mapping[str, Any]] = ()
    ) -> RunOutcome:
        """`POST /api/steps/<step_id>/runs/`: one successful run of a workflow step."""
        body = {"description": description, "edits": [dict(e) for e in edits]}
        return self._rest(
            RunOutcome, "POST", f"/api/steps/{step_id}/runs/", json=body, resend_safe=False
        )

    # --- sockets and the buffer -----------------------------------------------------------------

    def session(self) -> LearnSession:
        """A WebSocket session on /ws/learn/ (use it as a context manager)."""
        from learnportal_client.session import LearnSession

        return LearnSession(
            socket_url(self._settings.base_url),
            self._settings.token,
            retry=self._settings.retry,
            max_batch=self.batch_limit(),
            sleep=self._sleep,
        )

    def buffer(
        self,
        *,
        max_items: int = 500,
        max_interval: float = 1.0,
        on_unsent: Callable[[list[Unsent]], None] | None = None,
    ) -> LearnBuffer:
        """A background buffer of feedback and experiences (see `LearnBuffer`)."""
        from learnportal_client.buffer import LearnBuffer

        return LearnBuffer(
            self, max_items=max_items, max_interval=max_interval, on_unsent=on_unsent
        )

    # --- sending ---------------------------------------------------------------------------------

    def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            return self._http.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            raise unreachable(f"{method} {url}: {exc!r}") from None

    def _rest(
        self, model: type[Answer], method: str, url: str, *, resend_safe: bool = True, **kwargs: Any
    ) -> Answer:
        def attempt() -> Answer:
            reply = self._request(method, url, **kwargs)
            return answer_of(model, reply.status_code, decode(reply.content), _retry_after(reply))

        return self._retrying(attempt, resend_safe=resend_safe or method == "GET")

    def _retrying(self, attempt: Callable[[], Result], *, resend_safe: bool) -> Result:
        tries = 0
        while True:
            tries += 1
            try:
                return attempt()
            except Exception as error:
                wait = _wait(self._settings.retry, error, tries, resend_safe)
                if wait is None:
                    raise
                self._sleep(wait)


class AsyncLearnClient(AsyncLearnCalls):
    """The same client, awaited: `async with AsyncLearnClient(url, token) as client: ...`."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        retry: Retry | None = None,
        timeout: float = 30.0,
        max_batch: int | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._settings = _Settings(base_url, token, retry, max_batch)
        self._sleep = sleep
        self._http = httpx.AsyncClient(
            base_url=self._settings.base_url,
            headers=self._settings.headers,
            timeout=timeout,
            transport=transport,
        )

    async def __aenter__(self) -> AsyncLearnClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def send(self, request: Envelope) -> Response:
        body = encode(request_json(request))

        async def attempt() -> Response:
            reply = await self._request("POST", LEARN, content=body, headers=JSON)
            if reply.status_code != 200:
                raise error_of(reply.status_code, decode(reply.content), _retry_after(reply))
            return response_of(request.type, request.id, 200, decode(reply.content))

        return await self._retrying(attempt, resend_safe=request.type in RESEND_SAFE)

    async def discover(self) -> Capability:
        async def attempt() -> Capability:
            reply = await self._request("GET", LEARN)
            if reply.status_code != 200:
                raise error_of(reply.status_code, decode(reply.content), _retry_after(reply))
            return discovery_of(decode(reply.content))

        return await self._retrying(attempt, resend_safe=True)

    async def batch_limit(self) -> int:
        if self._settings._max_batch is None:
            self._settings._max_batch = (await self.discover()).max_batch
        return self._settings._max_batch

    async def routing(self) -> Routing:
        return await self._rest(Routing, "GET", "/api/routing/")

    async def submit_turns(self, turns: Iterable[QueuedTurn | Mapping[str, Any]]) -> TurnsCreated:
        items = [item_json(model_of(QueuedTurn, t)) for t in turns]
        answers = [
            await self._rest(TurnsCreated, "POST", "/api/turns/", json={"turns": part})
            for part in chunks(items, await self.batch_limit())
        ]
        return TurnsCreated(
            received=sum(a.received for a in answers), created=sum(a.created for a in answers)
        )

    async def turns(self, cursor: str = "", **filters: str | int | bool | None) -> TurnPage:
        if cursor:
            return await self._rest(TurnPage, "GET", cursor)
        return await self._rest(TurnPage, "GET", "/api/turns/", params=turns_query(**filters))

    async def report_run(
        self, step_id: str, description: str, edits: Sequence[Mapping[str, Any]] = ()
    ) -> RunOutcome:
        body = {"description": description, "edits": [dict(e) for e in edits]}
        return await self._rest(
            RunOutcome, "POST", f"/api/steps/{step_id}/runs/", json=body, resend_safe=False
        )

    async def session(self) -> AsyncLearnSession:
        """A WebSocket session on /ws/learn/ that pipelines: `async with await client.session()`."""
        from learnportal_client.session import AsyncLearnSession

        return AsyncLearnSession(
            socket_url(self._settings.base_url),
            self._settings.token,
            retry=self._settings.retry,
            max_batch=await self.batch_limit(),
            sleep=self._sleep,
        )

    async def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            return await self._http.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            raise unreachable(f"{method} {url}: {exc!r}") from None

    async def _rest(
        self, model: type[Answer], method: str, url: str, *, resend_safe: bool = True, **kwargs: Any
    ) -> Answer:
        async def attempt() -> Answer:
            reply = await self._request(method, url, **kwargs)
            return answer_of(model, reply.status_code, decode(reply.content), _retry_after(reply))

        return await self._retrying(attempt, resend_safe=resend_safe or method == "GET")

    async def _retrying(
        self, attempt: Callable[[], Awaitable[Result]], *, resend_safe: bool
    ) -> Result:
        tries = 0
        while True:
            tries += 1
            try:
                return await attempt()
            except Exception as error:
                wait = _wait(self._settings.retry, error, tries, resend_safe)
                if wait is None:
                    raise
                await self._sleep(wait)


def _retry_after(reply: httpx.Response) -> str | None:
    value: str | None = reply.headers.get("Retry-After")
    return value


def _wait(retry: Retry, error: Exception, tries: int, resend_safe: bool) -> float | None:
    if not isinstance(error, LearnError):
        return None
    return retry.wait(error, tries, resend_safe=resend_safe)
