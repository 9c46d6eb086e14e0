"""SIGTERM stops the server within its graceful-shutdown timeout, an A2E stream open: the stream
ends cleanly (its last chunk written) instead of holding uvicorn until the timeout cuts it."""

from __future__ import annotations

import re
import signal
import time
from typing import TYPE_CHECKING

from tests.learnportal.a2e.client import A2ESession
from tests.processes import REPO, clean_env, serve, stop

if TYPE_CHECKING:
    from pathlib import Path


def graceful_seconds() -> int:
    """`make run`'s --timeout-graceful-shutdown."""
    found = re.search(r"^GRACEFUL_SECONDS \?= (\d+)$", (REPO / "Makefile").read_text(), re.M)
    assert found is not None
    return int(found[1])


def test_make_run_and_the_production_recipe_bound_the_graceful_shutdown() -> None:
    makefile = (REPO / "Makefile").read_text()
    assert "--timeout-graceful-shutdown $(GRACEFUL_SECONDS)" in makefile
    recipe = f"--timeout-graceful-shutdown {graceful_seconds()}"
    assert recipe in (REPO / "docs" / "how-to" / "deploy.md").read_text()


def test_sigterm_ends_an_open_a2e_stream_cleanly_and_the_server_exits_within_its_timeout(
    tmp_path: Path,
) -> None:
    grace = graceful_seconds()
    env = clean_env(tmp_path, DJANGO_DEBUG="1", LEARNPORTAL_A2E_KEEPALIVE_SECONDS="60")
    log = tmp_path / "server.log"
    url, process = serve(env, log, "--log-level", "info", "--timeout-graceful-shutdown", str(grace))
    session = A2ESession(f"{url}/a2e").open()
    try:
        stream = session.connect()
        assert stream.status == 200
        assert stream.comments.get(timeout=30) == ": connected"
        process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        process.wait(timeout=grace + 20)
        took = time.monotonic() - started
        assert stream.next() is None  # the stream ended...
        assert stream.error is None  # ...cleanly: its last chunk was written
    finally:
        session.close()
        stop(process)
    assert took < grace / 2, log.read_text()
    assert "graceful shutdown exceeded" not in log.read_text()
