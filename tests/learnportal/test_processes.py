"""Two server processes on one PostgreSQL and one Redis behave as one deployment.

Each server is a uvicorn process of its own, started as an operator would (tests/processes.py),
on the test's database and Redis: a token revoked through one is refused by the other within a
second (its principal cache hears of it over Redis), an event written through one reaches a
dashboard socket on the other (the channel layer), and one rate limit holds across both (the
counts live in Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import subprocess
import time
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pytest
import websockets
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from core.accounts import services
from tests.builders import experience, experience_req, stats_req
from tests.processes import PYTHON, REPO, clean_env, database_url

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

PORTS = (8116, 8117)
PASSWORD = "long-enough-1"
RATE = 5


class Server:
    def __init__(self, port: int, tmp_path: Path) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        env = clean_env(
            tmp_path,
            DJANGO_DEBUG="1",
            DATABASE_URL=database_url(),
            REDIS_URL=settings.REDIS_URL,
            LEARNPORTAL_RATE_LIMIT=str(RATE),
            LEARNPORTAL_LOG_LEVEL="WARNING",
        )
        self.log = (tmp_path / f"server-{port}.log").open("wb")
        self.proc = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "uvicorn",
                "learnportal.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-access-log",
            ],
            cwd=REPO,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"the server on {self.port} exited"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/login/", timeout=2).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError(f"the server on {self.port} did not answer")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.log.close()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    started = [Server(port, tmp_path) for port in PORTS]
    try:
        for server in started:
            server.wait_ready()
        yield started[0], started[1]
    finally:
        for server in started:
            server.stop()


def learn(server: Server, token: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/learn/",
        content=orjson.dumps(body),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        timeout=10,
    )


def admin_with_a_password_the_servers_can_check(username: str) -> None:
    # The suite hashes passwords with MD5 for speed (tests/django_settings.py); the servers run
    # the real settings, which check only the real hashers (few iterations: it is a test).
    person = services.person_add(username=username, role="admin", password=PASSWORD)
    encoded = PBKDF2PasswordHasher().encode(PASSWORD, "saltsaltsalt", iterations=1000)
    type(person).objects.filter(pk=person.pk).update(password=encoded)


def logged_in(server: Server, username: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=10)
    client.get("/login/")
    client.post(
        "/login/",
        data={
            "username": username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": client.cookies["csrftoken"],
        },
    )
    assert "sessionid" in client.cookies
    return client


def test_a_token_revoked_through_one_server_is_refused_by_the_other_within_a_second(
    servers: tuple[Server, Server],
) -> None:
    one, other = servers
    admin_with_a_password_the_servers_can_check("root")
    token, raw = services.token_issue(name="agent-x", role="agent")
    assert learn(other, raw, stats_req()).status_code == 200  # cached there now
    admin = logged_in(one, "root")
    page = admin.get("/accounts/tokens/")
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert csrf is not None
    revoked = admin.post(
        f"/accounts/tokens/{token.pk}/revoke/", data={"csrfmiddlewaretoken": csrf[1]}
    )
    admin.close()
    assert revoked.status_code in (200, 302), revoked.text[:300]
    deadline = time.monotonic() + 1.0
    status = learn(other, raw, stats_req()).status_code
    while status != 401 and time.monotonic() < deadline:
        time.sleep(0.05)
        status = learn(other, raw, stats_req()).status_code
    assert status == 401


def test_an_event_written_through_one_server_reaches_a_dashboard_on_the_other(
    servers: tuple[Server, Server],
) -> None:
    one, other = servers
    _, raw = services.token_issue(name="agent-x", role="agent")

    async def watch_and_write() -> list[str]:
        url = f"ws://127.0.0.1:{other.port}/ws/events/"
        headers = {"Authorization": f"Bearer {raw}"}
        async with websockets.connect(url, additional_headers=headers) as socket:
            await asyncio.sleep(0.5)  # subscribed to the group
            reply = await asyncio.to_thread(learn, one, raw, experience_req(experience("c")))
            assert reply.status_code == 200, reply.text
            events: list[str] = []
            while "experience.stored" not in events:
                message = orjson.loads(await asyncio.wait_for(socket.recv(), timeout=5))
                events.append(message["event"])
            return events

    assert "experience.stored" in asyncio.run(watch_and_write())


def test_one_rate_limit_holds_across_both_servers(servers: tuple[Server, Server]) -> None:
    one, other = servers
    _, raw = services.token_issue(name="agent-x", role="agent")
    statuses: dict[int, list[int]] = {one.port: [], other.port: []}
    with httpx.Client(timeout=10) as client:
        started = time.time()
        for n in range(6 * RATE):
            server = (one, other)[n % 2]
            response = client.post(
                f"{server.url}/api/learn/",
                content=orjson.dumps(stats_req()),
                headers={"Authorization": f"Bearer {raw}", "Content-Type": "application/json"},
            )
            statuses[server.port].append(response.status_code)
        ended = time.time()
    windows = int(ended) - int(started) + 1  # fixed one-second windows of wall-clock time
    served = sum(code == 200 for codes in statuses.values() for code in codes)
    assert served <= RATE * windows, statuses
    assert all(429 in codes for codes in statuses.values()), statuses
