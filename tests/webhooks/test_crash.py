"""No webhook is lost when the worker is killed mid-flight, nor when the server is.

Everything runs as processes of their own on one database (a file for SQLite, the test's
database on PostgreSQL): a receiver that answers slowly, the server or a setup script that
writes changes and their outbox rows, and the worker, killed with SIGKILL while a delivery is
in flight and started again. Every webhook then arrives at least once (the receiver dedupes by
webhook-id) and verifies with the standardwebhooks package.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from typing import TYPE_CHECKING

import httpx
import pytest
from standardwebhooks import Webhook

from tests.processes import PYTHON, REPO, clean_env, database_url, manage, python_json, serve

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = 6
WAIT_SECONDS = 60


@pytest.fixture
def environ(tmp_path: Path, on_postgres: bool) -> dict[str, str]:
    url = database_url() if on_postgres else f"sqlite:///{tmp_path / 'portal.db'}"
    env = clean_env(
        tmp_path,
        DJANGO_DEBUG="1",
        DATABASE_URL=url,
        LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE="1",
        LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS="2",
        LEARNPORTAL_WEBHOOK_BACKOFF_SECONDS="0.2",
        LEARNPORTAL_RATE_LIMIT="0",
    )
    if not on_postgres:
        migrated = manage("migrate", "--no-input", "-v", "0", env=env)
        assert migrated.returncode == 0, migrated.stderr
    return env


class Slow:
    """The receiver process: answers each webhook after `delay` seconds."""

    def __init__(self, tmp_path: Path, delay: float) -> None:
        self.log = tmp_path / "received.jsonl"
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "tests.webhooks.receiver", "0", str(self.log), str(delay)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()

    def arrived(self) -> list[str]:
        path = self.log.parent / (self.log.name + ".arrived")
        return path.read_text().split() if path.exists() else []

    def answered(self) -> list[dict[str, dict[str, str] | str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def answered_ids(self) -> set[str]:
        return {
            headers["webhook-id"]
            for request in self.answered()
            if isinstance(headers := request["headers"], dict)
        }


@pytest.fixture
def slow(tmp_path: Path) -> Iterator[Slow]:
    me = Slow(tmp_path, delay=1.0)
    yield me
    me.proc.kill()
    me.proc.wait()


def worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [PYTHON, str(REPO / "manage.py"), "webhooks_worker", "--poll", "0.1"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def register(env: dict[str, str], url: str, event: str) -> str:
    code = (
        "from core.projects.selection import default_project_pk\n"
        "from webhooks.services import endpoint_register\n"
        f"_, secret = endpoint_register(project=default_project_pk(), url={url!r}, "
        f"events=[{event!r}], actor='boss')\n"
        "print(json.dumps({'secret': secret}))\n"
    )
    return str(python_json(code, env=env)["secret"])


def outbox(env: dict[str, str]) -> tuple[list[list[str]], int]:
    """The outbox's rows (webhook-id, state, body) and how many feedback rows are stored."""
    code = (
        "from webhooks.models import Delivery\n"
        "rows = list(Delivery.objects.values_list('message_id', 'state', 'body'))\n"
        "from feedback.models import Feedback\n"
        "print(json.dumps({'rows': rows, 'feedback': Feedback.objects.count()}))\n"
    )
    found = python_json(code, env=env)
    return found["rows"], found["feedback"]


def delivered_exactly_the_outbox(env: dict[str, str], slow: Slow, secret: str) -> set[str]:
    rows, _ = outbox(env)
    wanted = {row[0] for row in rows}
    # Each webhook answered first (the receiver's log, cheap to read), then each recorded as
    # delivered, not only answered: the receiver also answers, into the void, what a killed
    # worker had in flight, and that row is sent again once its lease runs out. The outbox is
    # read by a process of its own, so it is polled only once the answers are all in.
    wait_for(
        lambda: wanted <= slow.answered_ids(),
        "every outbox row answered",
    )
    wait_for(
        lambda: {row[1] for row in outbox(env)[0]} == {"delivered"},
        "every outbox row delivered",
    )
    seen: dict[str, str] = {}
    for request in slow.answered():
        headers, body = request["headers"], request["body"]
        assert isinstance(headers, dict) and isinstance(body, str)
        Webhook(secret).verify(body, headers)
        seen.setdefault(headers["webhook-id"], body)  # the receiver's dedupe
    assert set(seen) == wanted
    return wanted


def test_a_worker_killed_mid_flight_loses_no_webhook(environ: dict[str, str], slow: Slow) -> None:
    secret = register(environ, slow.url, "plan.filed")
    code = (
        "from refinement.history import history_record\n"
        "from tests.harness import keyed\n"
        f"for n in range({EVENTS}): "
        "history_record('plan', keyed('token:agent-1'), plan_id=f'p-{n}')\n"
        "print(json.dumps({}))\n"
    )
    python_json(code, env=environ)
    first = worker(environ)
    try:
        wait_for(lambda: len(slow.arrived()) >= 2, "a second delivery in flight")
        os.kill(first.pid, signal.SIGKILL)  # while the receiver holds that request
    finally:
        first.wait()
    assert len(slow.answered()) < EVENTS
    second = worker(environ)
    try:
        wanted = delivered_exactly_the_outbox(environ, slow, secret)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)
    assert len(wanted) == EVENTS
    assert {row[1] for row in outbox(environ)[0]} == {"delivered"}


def feedback_batch(n: int) -> dict[str, object]:
    items = [
        {"feedback_id": f"fb-{n}-{i}", "polarity": "positive", "score": 0.5, "component_name": "c"}
        for i in range(3)
    ]
    return {"type": "learn/feedback/req", "id": f"req-{n}", "feedbacks": items}


def test_a_server_killed_mid_write_commits_each_batch_with_its_webhook_or_neither(
    environ: dict[str, str], tmp_path: Path
) -> None:
    slow = Slow(tmp_path, delay=0.0)
    try:
        _server_killed(environ, tmp_path, slow)
    finally:
        slow.proc.kill()
        slow.proc.wait()


def _server_killed(environ: dict[str, str], tmp_path: Path, slow: Slow) -> None:
    secret = register(environ, slow.url, "feedback.recorded")
    code = (
        "from core.accounts.services import token_issue\n"
        "_, raw = token_issue(name='gym-1', role='environment')\n"
        "print(json.dumps({'token': raw}))\n"
    )
    token = python_json(code, env=environ)["token"]
    # The venv that runs the tests, on a port of its own (listening already: no wait for it).
    base, portal = serve(environ, tmp_path / "server.log")
    url = f"{base}/api/learn/"
    answered: list[int] = []
    numbers = iter(range(100_000))

    def post_until_refused(http: httpx.Client) -> None:
        for n in numbers:
            try:
                if http.post(url, json=feedback_batch(n)).status_code == 200:
                    answered.append(n)
            except httpx.HTTPError:
                return

    try:
        with httpx.Client(headers={"authorization": f"Bearer {token}"}, timeout=10) as http:
            wait_for(lambda: _up(http, url), "the server listening")
            senders = [threading.Thread(target=post_until_refused, args=(http,)) for _ in range(4)]
            for sender in senders:
                sender.start()
            wait_for(lambda: len(answered) >= 20, "twenty batches stored")
            os.kill(portal.pid, signal.SIGKILL)  # with batches in flight
            for sender in senders:
                sender.join()
    finally:
        portal.kill()
        portal.wait()
    answered_count = len(answered)
    assert answered_count >= 20
    rows, stored = outbox(environ)
    bodies = [json.loads(row[2]) for row in rows]
    # Every batch that committed has its one webhook, with its count; none has one without.
    assert sum(body["data"]["count"] for body in bodies) == stored
    assert len(bodies) * 3 == stored >= answered_count * 3
    second = worker(environ)
    try:
        delivered_exactly_the_outbox(environ, slow, secret)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)


def _up(http: httpx.Client, url: str) -> bool:
    try:
        http.get(url)
    except httpx.HTTPError:
        return False
    return True
