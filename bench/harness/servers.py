"""The app served as `make run` serves it, on a free loopback port, for one section of a run.

`Stack` is a section's world: a fresh database (bench.harness.databases), migrated, with tokens,
and a server answering on it; it is always stopped and dropped, on an error or a signal too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from bench.harness.databases import ROOT, BenchError, Database, app_env, manage

if TYPE_CHECKING:
    from collections.abc import Callable


SERVERS = ("uvicorn", "daphne")
TOKENS = {"agent": "agent", "env": "environment", "seeder": "agent"}


def executable(name: str) -> str:
    """A command of this environment (the venv's own first)."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if not found:
        raise BenchError(f"{name} is not installed in this environment")
    return found


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    kind: str
    env: dict[str, str]
    log_path: Path
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    workers: int = 1  # uvicorn's --workers, as WEB_CONCURRENCY sets it in `make run`

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/learn/"

    def command(self) -> list[str]:
        app = "learnportal.asgi:application"
        if self.kind == "uvicorn":
            # As `make run` serves it.
            return [
                executable("uvicorn"),
                app,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
                "--log-level",
                "warning",
                "--ws-max-size",
                "67108864",
                "--workers",
                str(self.workers),
            ]
        if self.kind == "daphne":
            if self.workers != 1:
                raise BenchError("daphne serves one process; several workers need uvicorn")
            return [executable("daphne"), "-b", "127.0.0.1", "-p", str(self.port), "-v", "0", app]
        raise BenchError(f"unknown server {self.kind!r}; choose from {', '.join(SERVERS)}")

    def start(self, token: str, timeout: float = 60.0) -> None:
        self.port = free_port()
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            self.command(),
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        headers = {"Authorization": f"Bearer {token}"}
        wait_for(f"{self.base_url}/api/learn/", self.proc, self.kind, self.log_tail,
                 headers=headers, timeout=timeout, poll=0.1)  # fmt: skip

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


@dataclass
class Stack:
    """One section's world: fresh database, migrated, with tokens, and a server answering."""

    database: Database
    label: str
    server_kind: str = "uvicorn"
    debug: bool = False
    env: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    server: Server | None = None
    settings_module: str | None = None  # instead of learnportal.settings, e.g. with a baseline

    def __enter__(self) -> Stack:
        db_env = self.database.create(self.label)
        self.env = app_env(db_env, debug=self.debug)
        if self.settings_module:
            self.env["DJANGO_SETTINGS_MODULE"] = self.settings_module
        try:
            self._prepare()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _prepare(self) -> None:
        manage(self.env, "migrate", "--no-input", "-v", "0")
        for name, role in TOKENS.items():
            self.tokens[name] = manage(self.env, "createtoken", f"bench-{name}", "--role", role)
        log_dir = ROOT / "var"
        log_dir.mkdir(parents=True, exist_ok=True)
        log_path = log_dir / f"bench-{os.getpid()}-{self.label}-{self.server_kind}.log"
        self.server = Server(self.server_kind, self.env, log_path)
        self.server.start(self.tokens["agent"])

    def __exit__(self, *exc: object) -> None:
        try:
            if self.server is not None:
                self.server.stop()
                if not self.database.keep:
                    with contextlib.suppress(OSError):
                        self.server.log_path.unlink()
        finally:
            if self.env:
                self.database.drop(self.env)

    def connect(self) -> Any:
        return self.database.connect(self.env)

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    @property
    def ws_url(self) -> str:
        assert self.server is not None
        return self.server.ws_url

    def headers(self, who: str = "agent") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}", "Content-Type": "application/json"}


def wait_for(
    url: str,
    proc: subprocess.Popen[bytes],
    what: str,
    log_tail: Callable[[], str],
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 60.0,
    poll: float = 1.0,
    error: type[BenchError] = BenchError,
) -> None:
    """Return once `url` answers 200; raise `error` with the log's tail if the process exits
    or `timeout` passes first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise error(f"{what} exited at start:\n{log_tail()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, headers=headers, timeout=5).status_code == 200:
                return
        time.sleep(poll)
    raise error(f"{what} did not answer within {timeout:.0f} s:\n{log_tail()}")
