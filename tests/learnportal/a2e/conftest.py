"""The A2E transport on the live server of tests/conftest.py (`make run`'s uvicorn, in a thread)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.learnportal.a2e.client import A2ESession

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


@pytest.fixture(autouse=True)
def _fresh_sessions(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with no A2E session: limits count the sessions of one address."""
    from django.conf import settings

    from learnportal.a2e import sessions

    def clear() -> None:
        if settings.REDIS_URL:  # the test run's own Redis database
            import redis

            client = redis.Redis.from_url(settings.REDIS_URL)
            for key in client.scan_iter(match="a2e:*", count=1000):
                client.delete(key)

    monkeypatch.setattr(sessions, "_store", None)
    clear()
    yield
    clear()


@pytest.fixture
def a2e_url(settings: Any, asgi_server: str) -> str:
    """The base URL an A2E agent's HTTPTransport is given: http://HOST:PORT/a2e."""
    settings.LEARNPORTAL_A2E_KEEPALIVE_SECONDS = 0.2  # read by each stream as it opens
    return f"{asgi_server}/a2e"


@pytest.fixture
def connect(a2e_url: str) -> Iterator[Callable[..., A2ESession]]:
    """`connect(token)`: a session with its stream open, after an accepted handshake."""
    opened: list[A2ESession] = []

    def open_session(token: str, *, via: str = "auth_token") -> A2ESession:
        from tests.learnportal.a2e.client import handshake

        session = A2ESession(a2e_url, token if via == "header" else None).open()
        opened.append(session)
        session.connect()
        reply = session.rpc(handshake(token if via == "auth_token" else ""))
        assert reply["ok"] is True, reply
        return session

    yield open_session
    for session in opened:
        session.close()
