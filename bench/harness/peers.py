"""A peer's own venv under var/bench/ (never the project's), made with the peer on first use."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from bench.harness.databases import ROOT, BenchError
from bench.harness.report import log

if TYPE_CHECKING:
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
