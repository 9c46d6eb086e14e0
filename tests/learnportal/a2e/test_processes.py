"""With REDIS_URL set, one session's `/send` and `/stream` may be served by different processes."""

from __future__ import annotations

import socket
import subprocess
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings

from tests.builders import experience, experience_req, stats_req
from tests.learnportal.a2e.client import A2ESession, Stream, handshake, message
from tests.processes import PYTHON, REPO, clean_env

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.harness import Actor

pytestmark = [pytest.mark.postgres, pytest.mark.redis]


def database_url() -> str:
    db = settings.DATABASES["default"]
    # The test database this test's rows are committed to (a transactional test).
    user = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{user}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def servers(transactional_db: None, tmp_path: Path) -> Iterator[list[str]]:
    """Two uvicorn processes of learnportal.asgi on the same database and Redis."""
    env = clean_env(
        tmp_path,
        DJANGO_DEBUG="1",
        DATABASE_URL=database_url(),
        REDIS_URL=settings.REDIS_URL,
        LEARNPORTAL_A2E_KEEPALIVE_SECONDS="0.5",
    )
    processes: list[subprocess.Popen[bytes]] = []
    urls = []
    for _ in range(2):
        # Listening before uvicorn starts (it takes the socket with --fd): no polling for it.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        command = [PYTHON, "-m", "uvicorn", "learnportal.asgi:application"]
        command += ["--fd", str(sock.fileno()), "--log-level", "warning", "--lifespan", "off"]
        processes.append(subprocess.Popen(command, cwd=REPO, env=env, pass_fds=[sock.fileno()]))
        urls.append(f"http://127.0.0.1:{sock.getsockname()[1]}/a2e")
        sock.close()
    yield urls
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=30)


def test_send_and_stream_of_one_session_may_be_served_by_different_processes(
    servers: list[str], agent: Actor
) -> None:
    first, second = servers
    session = A2ESession(first, agent.token).open()  # created by the first process
    stream = Stream(second, session.session_id, session.headers)  # read from the second
    requests: list[dict[str, Any]] = [handshake(""), stats_req(), experience_req(experience("c"))]
    for request in requests:
        session.send(request)
    replies = [stream.next() for _ in requests]
    assert [r["req_id"] for r in replies] == [q["id"] for q in requests]  # type: ignore[index]
    assert replies[0]["ok"] is True  # type: ignore[index]
    assert replies[2]["stored"] == 1  # type: ignore[index]
    stream.close()

    # the stream reconnects to the first process, the messages go to the second
    over_second = A2ESession(second, agent.token, session.session_id)
    pings = [message("ping") for _ in range(3)]
    for ping in pings:
        over_second.send(ping)
    stream = Stream(first, session.session_id, session.headers, stream.last_event_id)
    assert [stream.next()["req_id"] for _ in pings] == [p["id"] for p in pings]  # type: ignore[index]
    over_second.send(message("shutdown"))
    assert stream.next() is None
    assert session.post(stats_req()).status_code == 404  # ended for every process
    stream.close()
    session.close()
    over_second.close()
