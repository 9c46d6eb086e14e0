"""The background buffer: sends by size, by time, on flush and on close; never drops silently."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from feedback.models import Experience as StoredExperience
from feedback.models import Feedback as StoredFeedback
from learnportal_client import LearnClient, Retry, Unsent
from tests.processes import REPO

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.client.conftest import Portal

AGENT = REPO / "tests" / "client" / "buffering_agent.py"


def eventually(check: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait for what a background thread does (not how fast: the timeout is generous)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not done in time"
        time.sleep(0.02)


def dead_url() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


def stored_ids() -> set[str]:
    return set(StoredExperience.objects.values_list("experience_id", flat=True))


def test_a_full_buffer_is_sent_without_waiting(client: LearnClient) -> None:
    with client.buffer(max_items=5, max_interval=3600) as buffer:
        for i in range(5):
            buffer.add_experience({"reward": float(i) / 10})
        eventually(lambda: buffer.pending == 0)
    assert StoredExperience.objects.count() == 5


def test_an_item_waiting_max_interval_is_sent(client: LearnClient) -> None:
    with client.buffer(max_items=1000, max_interval=0.05) as buffer:
        buffer.add_feedback({"polarity": "positive", "component_name": "c"})
        eventually(lambda: buffer.pending == 0)
    assert StoredFeedback.objects.count() == 1


def test_flush_returns_once_everything_added_is_stored(client: LearnClient) -> None:
    with client.buffer(max_items=3, max_interval=3600) as buffer:
        ids = [buffer.add_experience({"reward": 0.5}) for _ in range(7)]
        buffer.add_feedback({"polarity": "neutral"})
        buffer.flush()
        assert stored_ids() == set(ids)
        assert StoredFeedback.objects.count() == 1


def test_an_item_the_host_refuses_is_reported_and_the_rest_is_stored(
    client: LearnClient,
) -> None:
    reported: list[Unsent] = []
    with client.buffer(max_interval=3600, on_unsent=reported.extend) as buffer:
        good = buffer.add_feedback({"polarity": "positive"})
        bad = buffer.add_feedback({"polarity": "positive", "source": "env"})
        buffer.flush()
    assert list(StoredFeedback.objects.values_list("feedback_id", flat=True)) == [good]
    assert [(u.item_id, u.error and u.error.code) for u in reported] == [(bad, "forbidden")]


def test_an_invalid_item_is_refused_when_added(client: LearnClient) -> None:
    with client.buffer() as buffer, pytest.raises(Exception, match="confidence"):
        buffer.add_feedback({"polarity": "positive", "confidence": 2})


def test_items_the_host_never_took_are_returned_and_reported_on_close() -> None:
    reported: list[Unsent] = []
    client = LearnClient(dead_url(), "t", retry=Retry(attempts=1), max_batch=100)
    buffer = client.buffer(max_interval=3600, on_unsent=reported.extend)
    ids = [buffer.add_experience({"reward": 1.0}) for _ in range(3)]
    unsent = buffer.close(timeout=30)
    assert [u.item_id for u in unsent] == ids
    assert all(u.error is None and u.kind == "experiences" for u in unsent)
    assert reported == unsent


def agent(url: str, token: str, flushed: int, late: int, mode: str) -> subprocess.Popen[str]:
    # The agent's process has the client and the protocol models, not the server's packages.
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'clients' / 'python'}{os.pathsep}{REPO}"}
    return subprocess.Popen(
        [sys.executable, str(AGENT), url, token, str(flushed), str(late), mode],
        cwd=AGENT.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_an_agent_killed_after_flush_lost_nothing_it_flushed(portal: Portal) -> None:
    process = agent(portal.url, portal.token, flushed=120, late=30, mode="wait")
    try:
        assert process.stdout is not None
        said = json.loads(process.stdout.readline() or "{}")
        assert said.get("flushed") == 120, process.stderr and process.stderr.read()
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=30)
    assert said["server_modules"] == []  # the client needs no Django
    flushed = {f"flushed-{i}" for i in range(120)}
    assert flushed <= stored_ids()


def test_an_agent_that_exits_without_closing_reports_what_it_could_not_send() -> None:
    process = agent(dead_url(), "t", flushed=0, late=3, mode="exit")
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "3 items were not stored: late-0, late-1, late-2" in stderr
