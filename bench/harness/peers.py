"""A peer of a comparison: its own venv under var/bench/ (never the project's), made with the peer
on first use, and its server run on a fresh working directory."""

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
from bench.harness.servers import wait_for

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def peer_command(venv: Path, package: str, command: str, unavailable: type[BenchError]) -> Path:
    """The peer's `command` in `venv`, installing `package` (pinned) there first if needed;
    `unavailable` says why not."""
    binary = venv / "bin" / command
    if binary.exists():
        return binary
    log(f"{command}: creating {venv.relative_to(ROOT)} and installing {package}")
    venv.parent.mkdir(parents=True, exist_ok=True)
    base = getattr(sys, "_base_executable", sys.executable)
    for step in (
        [base, "-m", "venv", str(venv)],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", package],
    ):
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise unavailable(
                f"`{' '.join(step)}` failed: {(done.stderr or done.stdout).strip()[-1500:]}"
            )
    return binary


def peer_data(name: str) -> Path:
    """A fresh working directory for a peer's server under var/bench/."""
    data = ROOT / "var" / "bench" / f"{name}-data-{os.getpid()}"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    return data


@contextlib.contextmanager
def peer_serving(
    name: str,
    command: list[str],
    settings: dict[str, str],
    data: Path,
    health_url: str,
    unavailable: type[BenchError],
) -> Iterator[subprocess.Popen[bytes]]:
    """Run a peer's server (`command`, with `settings` over an environment free of ours) until
    `health_url` answers, its log in `data`; stopped, its group killed and `data` removed, when
    done."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE_URL"))}
    log_path = data / "server.log"
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            command, env=env | settings, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        wait_for(health_url, proc, name, lambda: log_path.read_text()[-2000:],
                 timeout=300, error=unavailable)  # fmt: skip
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        shutil.rmtree(data, ignore_errors=True)
