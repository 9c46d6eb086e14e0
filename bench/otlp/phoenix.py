"""Arize Phoenix, the peer of the trace ingest: its own venv under var/bench/ (never the
project's), a fresh working directory (SQLite), served on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

from bench.harness.databases import ROOT, BenchError
from bench.harness.report import log
from bench.harness.servers import free_port, wait_for

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

PHOENIX = "arize-phoenix==20.26.1"
PHOENIX_VENV = ROOT / "var" / "bench" / "phoenix-venv"


class PhoenixUnavailable(BenchError):
    pass


def phoenix_venv() -> Path:
    """Phoenix's own venv, created with it on first use."""
    binary = PHOENIX_VENV / "bin" / "phoenix"
    if binary.exists():
        return binary
    log(f"phoenix: creating {PHOENIX_VENV.relative_to(ROOT)} and installing {PHOENIX}")
    PHOENIX_VENV.parent.mkdir(parents=True, exist_ok=True)
    base = getattr(sys, "_base_executable", sys.executable)
    for step in (
        [base, "-m", "venv", str(PHOENIX_VENV)],
        [str(PHOENIX_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", PHOENIX],
    ):
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PhoenixUnavailable(
                f"`{' '.join(step)}` failed: {(done.stderr or done.stdout).strip()[-1500:]}"
            )
    return binary


@contextlib.contextmanager
def phoenix_server() -> Iterator[tuple[str, int]]:
    """Phoenix on a free loopback port with a fresh SQLite working dir: (base URL, its pid)."""
    binary = phoenix_venv()
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
