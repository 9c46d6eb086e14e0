"""Arize Phoenix, the peer of the trace ingest: its own venv under var/bench/ (never the
project's), a fresh working directory (SQLite), served on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from typing import TYPE_CHECKING

from bench.harness.databases import ROOT, BenchError
from bench.harness.peers import peer_command
from bench.harness.servers import free_port, wait_for

if TYPE_CHECKING:
    from collections.abc import Iterator

PHOENIX = "arize-phoenix==20.26.1"
PHOENIX_VENV = ROOT / "var" / "bench" / "phoenix-venv"


class PhoenixUnavailable(BenchError):
    pass


@contextlib.contextmanager
def phoenix_server() -> Iterator[tuple[str, int]]:
    """Phoenix on a free loopback port with a fresh SQLite working dir: (base URL, its pid)."""
    binary = peer_command(PHOENIX_VENV, PHOENIX, "phoenix", PhoenixUnavailable)
    data = ROOT / "var" / "bench" / f"phoenix-data-{os.getpid()}"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE_URL"))} | {
        "PHOENIX_WORKING_DIR": str(data),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log_path = data / "server.log"
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [str(binary), "serve"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{base}/healthz", proc, "phoenix", lambda: log_path.read_text()[-2000:],
                 timeout=300, error=PhoenixUnavailable)  # fmt: skip
        yield base, proc.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        shutil.rmtree(data, ignore_errors=True)
