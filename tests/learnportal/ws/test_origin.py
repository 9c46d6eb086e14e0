"""A browser's WebSocket handshake must come from the portal's own origin or a trusted one.

The origin is scheme, host and port: a page on the same host but another port, or over the
other scheme, is another site. Clients that send no Origin (agents with a bearer token) are in.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness import WS_TIMEOUT, Actor, ws_communicator

pytestmark = pytest.mark.django_db(transaction=True)


async def handshake(
    actor: Actor, *, origin: str | None, host: str = "localhost:8000", **scope: Any
) -> bool:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    headers += [(name.encode(), value.encode()) for name, value in scope.pop("headers", [])]
    communicator = ws_communicator(token=actor.raw_token, headers=headers)
    communicator.scope.update(scope)
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    if connected:
        await communicator.disconnect()
    return connected


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("localhost:8000", "http://localhost:8000"),
        ("LOCALHOST:8000", "http://localhost:8000"),
        ("localhost", "http://localhost:80"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("[::1]:8000", "http://[::1]:8000"),
    ],
)
async def test_a_handshake_from_the_portal_itself_is_accepted(
    agent: Actor, host: str, origin: str
) -> None:
    assert await handshake(agent, host=host, origin=origin)


async def test_a_handshake_without_an_origin_is_accepted(agent: Actor) -> None:
    assert await handshake(agent, origin=None)


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example",
        "http://localhost:9000",  # same host, another port
        "https://localhost:8000",  # same host and port, the other scheme
        "http://localhost",  # port 80
        "http://localhost.evil.example:8000",
        "null",  # a sandboxed frame or a file
        "",
    ],
)
async def test_a_handshake_from_another_origin_is_refused(agent: Actor, origin: str) -> None:
    """A page elsewhere must not ride a logged-in person's cookie into the socket."""
    assert not await handshake(agent, origin=origin)


async def test_a_handshake_with_two_origins_is_refused(agent: Actor) -> None:
    assert not await handshake(
        agent, origin="http://localhost:8000", headers=[("origin", "https://evil.example")]
    )


async def test_a_secure_handshake_needs_an_https_origin(agent: Actor) -> None:
    assert await handshake(agent, origin="https://localhost:8000", scheme="wss")
    assert not await handshake(agent, origin="http://localhost:8000", scheme="wss")


async def test_a_host_the_portal_does_not_serve_is_refused_even_from_its_own_origin(
    agent: Actor,
) -> None:
    """A rebinding name that points at the portal is not the portal."""
    assert not await handshake(
        agent, host="rebound.example:8000", origin="http://rebound.example:8000"
    )


async def test_behind_a_trusted_proxy_the_forwarded_scheme_counts(
    agent: Actor, settings: Any
) -> None:
    forwarded: dict[str, Any] = {"headers": [("x-forwarded-proto", "https")]}
    assert not await handshake(agent, origin="https://localhost:8000", **forwarded)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert await handshake(agent, origin="https://localhost:8000", **forwarded)
    assert not await handshake(agent, origin="http://localhost:8000", **forwarded)


async def test_a_trusted_origin_is_accepted(agent: Actor, settings: Any) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://portal.example.com"]
    assert await handshake(agent, host="localhost:8000", origin="https://portal.example.com")
    assert not await handshake(
        agent, host="localhost:8000", origin="https://portal.example.com:8443"
    )
