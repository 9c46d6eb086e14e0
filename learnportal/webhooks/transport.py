"""The worker's HTTP client: it connects only to an address it has just checked.

httpx resolves a URL's host when it connects, after any check of ours: a name that answered
with a public address to the check may answer with 127.0.0.1 to the connection (DNS
rebinding). So the check is made inside the connection: the network backend below resolves the
host once, refuses it unless every address is allowed (learnportal.webhooks.addresses), and
opens the socket to one of those addresses. The URL, and so the Host header, TLS SNI and the
certificate's check, keep the name. A kept-alive connection is reused only for its own host,
and was checked when it was opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpcore
import httpx

from learnportal.webhooks.addresses import allowed_addresses

if TYPE_CHECKING:
    from collections.abc import Iterable


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
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError:  # refused at once: the next address (a timeout is not)
                continue
        return super().connect_tcp(addresses[-1], port, timeout, local_address, socket_options)


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
