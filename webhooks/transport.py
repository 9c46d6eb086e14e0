"""The worker's HTTP client: it connects only to an address it has just checked.

httpx resolves a URL's host when it connects, after any check of ours: a name that answered
with a public address to the check may answer with 127.0.0.1 to the connection (DNS
rebinding). So the check is made inside the connection: the network backend below resolves the
host once, refuses it unless every address is allowed (webhooks.addresses), and
opens the socket to one of those addresses. The URL, and so the Host header, TLS SNI and the
certificate's check, keep the name. A kept-alive connection is reused only for its own host,
and was checked when it was opened.

httpx's timeout bounds each step (connecting, each write, each read), not an attempt: a
receiver that answers a little at a time could hold one for ever, past the worker's lease on the
row. Within `deadline(seconds)` every step of the connection gets what is left of the attempt's
time, and none begins once it is over.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

from webhooks.addresses import allowed_addresses

if TYPE_CHECKING:
    import ssl
    from collections.abc import Iterable, Iterator

_ends_at: ContextVar[float | None] = ContextVar("webhook_attempt_ends_at", default=None)


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every step of the connections used inside ends within `seconds` from now."""
    token = _ends_at.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _ends_at.reset(token)


def _time_left(timeout: float | None, late: type[httpcore.TimeoutException]) -> float | None:
    """The step's timeout, cut to what is left of the attempt; `late` once nothing is."""
    ends_at = _ends_at.get()
    if ends_at is None:
        return timeout
    left = ends_at - time.monotonic()
    if left <= 0:
        raise late("the attempt's time is over")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self.stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.stream.read(max_bytes, _time_left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.stream.write(buffer, _time_left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _time_left(timeout, httpcore.ConnectTimeout)
        tls = self.stream.start_tls(ssl_context, server_hostname=server_hostname, timeout=left)
        return DeadlineStream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self.stream.get_extra_info(info)


class CheckedBackend(httpcore.SyncBackend):
    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = allowed_addresses(host, port)  # Refused propagates: no connection at all
        for address in addresses[:-1]:
            try:
                return self._connect(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError:  # refused at once: the next address (a timeout is not)
                continue
        return self._connect(addresses[-1], port, timeout, local_address, socket_options)

    def _connect(
        self,
        address: str,
        port: int,
        timeout: float | None,
        local_address: str | None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None,
    ) -> httpcore.NetworkStream:
        left = _time_left(timeout, httpcore.ConnectTimeout)
        stream = super().connect_tcp(address, port, left, local_address, socket_options)
        return DeadlineStream(stream)


class CheckedTransport(httpx.HTTPTransport):
    """httpx's own transport, its connection pool on the checking backend and no proxy."""

    def __init__(self) -> None:
        super().__init__(trust_env=False)
        # HTTPTransport takes no network backend: its pool is replaced by one with ours (httpx
        # 0.28; test_addresses fails if a later httpx stops reading `_pool`).
        limits = httpx.Limits()  # httpx's defaults: keep a connection alive 5 s at most
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=CheckedBackend(),
        )


def client(timeout: float) -> httpx.Client:
    """No redirects followed, no proxy from the environment (it would connect for us)."""
    return httpx.Client(
        transport=CheckedTransport(), timeout=timeout, follow_redirects=False, trust_env=False
    )
