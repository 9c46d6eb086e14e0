"""A live server for the A2E transport: `make run`'s uvicorn and learnportal.asgi in a thread."""

from __future__ import annotations

import socket
import threading
from typing import TYPE_CHECKING, Any

import pytest

from tests.learnportal.a2e.client import A2ESession

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


@pytest.fixture
def a2e_url(transactional_db: None, settings: Any) -> Iterator[str]:
    """The base URL an A2E agent's HTTPTransport is given: http://HOST:PORT/a2e."""
    import uvicorn

    from learnportal.asgi import application

    settings.LEARNPORTAL_A2E_KEEPALIVE_SECONDS = 0.2
    # Listening before uvicorn starts: early connections wait in the backlog, no polling.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(application, lifespan="off", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/a2e"
    server.should_exit = True
    thread.join(timeout=30)
    sock.close()


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
