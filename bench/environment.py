"""A fresh database, its tokens and a live server for one benchmark section; always cleaned up."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ("uvicorn", "daphne")
TOKENS = {"agent": "agent", "env": "environment", "seeder": "agent"}


class BenchError(RuntimeError):
    pass


def _bin(name: str) -> str:
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


class Database:
    """Where the bench's fresh databases live: SQLite files in a temp dir, or a PostgreSQL server."""

    def __init__(self, admin_url: str | None, keep: bool = False) -> None:
        self.admin_url = admin_url or ""
        self.keep = keep
        self.kind = "postgresql" if self.admin_url.startswith(("postgres", "pgsql")) else "sqlite"
        if self.admin_url and self.kind != "postgresql":
            raise BenchError(f"--database-url must be a postgres:// URL, got {self.admin_url!r}")
        self.root = ROOT / "var" / f"bench-{os.getpid()}"
        self.created: list[str] = []

    # --- lifecycle ------------------------------------------------------------------------
    def create(self, label: str) -> dict[str, str]:
        """Create a fresh, empty database; return the env vars that point the app at it."""
        name = f"{label}-{len(self.created)}"
        if self.kind == "sqlite":
            var_dir = self.root / name
            var_dir.mkdir(parents=True, exist_ok=False)
            self.created.append(str(var_dir))
            return {"LEARNPORTAL_VAR_DIR": str(var_dir)}
        import psycopg

        db = f"learnportal_bench_{os.getpid()}_{len(self.created)}"
        with psycopg.connect(self._conninfo(self.admin_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}"')
            conn.execute(f'CREATE DATABASE "{db}"')
        self.created.append(db)
        return {"DATABASE_URL": self._url_for(db)}

    def drop(self, env: dict[str, str]) -> None:
        """Remove one section's database (unless --keep)."""
        if self.keep:
            return
        if self.kind == "sqlite":
            shutil.rmtree(env["LEARNPORTAL_VAR_DIR"], ignore_errors=True)
            return
        import psycopg

        db = urlsplit(env["DATABASE_URL"]).path.lstrip("/")
        with psycopg.connect(self._conninfo(self.admin_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')

    def drop_all(self) -> None:
        """Whatever is left at the end: every database this run created (unless --keep)."""
        if self.keep:
            return
        if self.kind == "sqlite":
            shutil.rmtree(self.root, ignore_errors=True)
            return
        import psycopg

        with psycopg.connect(self._conninfo(self.admin_url), autocommit=True) as conn:
            for db in self.created:
                conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        self.created.clear()

    # --- raw driver access ----------------------------------------------------------------
    def connect(self, env: dict[str, str]) -> Any:
        """A plain driver connection to the section's database, for the raw-insert baseline."""
        if self.kind == "sqlite":
            path = Path(env["LEARNPORTAL_VAR_DIR"]) / "learnportal.sqlite3"
            conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
            # The same durability as the app's connections (learnportal/settings.py).
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA cache_size=-65536")
            conn.execute("PRAGMA wal_autocheckpoint=10000")
            return conn
        import psycopg

        return psycopg.connect(self._conninfo(env["DATABASE_URL"]))

    def version(self) -> str:
        if self.kind == "sqlite":
            return f"SQLite {sqlite3.sqlite_version}"
        import psycopg

        with psycopg.connect(self._conninfo(self.admin_url)) as conn:
            row = conn.execute("SHOW server_version").fetchone()
            settings: dict[str, str] = dict(
                conn.execute(
                    "SELECT name, setting FROM pg_settings WHERE name IN "
                    "('synchronous_commit', 'fsync', 'shared_buffers', 'wal_level')"
                ).fetchall()
            )
        extra = ", ".join(f"{k}={v}" for k, v in sorted(settings.items()))
        return f"PostgreSQL {row[0] if row else '?'} ({extra})"

    @staticmethod
    def _conninfo(url: str) -> str:
        # psycopg understands postgresql:// URLs; dj-database-url also takes postgres://.
        return url.replace("postgres://", "postgresql://", 1)

    def _url_for(self, db: str) -> str:
        parts = urlsplit(self.admin_url)
        return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


def app_env(db_env: dict[str, str], *, debug: bool) -> dict[str, str]:
    """The environment for manage.py, the server and in-process workers of one section."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "LEARNPORTAL_VAR_DIR")}
    env.update(db_env)
    env["DJANGO_DEBUG"] = "1" if debug else "0"
    env.setdefault("DJANGO_SECRET_KEY", "bench-" + secrets.token_urlsafe(50))  # production: 50+
    # The per-principal rate limit (2000 req/s by default) is a guard against runaway clients;
    # the bench measures what the request path can do, so it is off here (see BENCHMARKS.md).
    env["LEARNPORTAL_RATE_LIMIT"] = "0"
    env.setdefault("LEARNPORTAL_LOG_LEVEL", "WARNING")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise BenchError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-4000:]}")
    return result.stdout.strip()


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
                _bin("uvicorn"),
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
            return [_bin("daphne"), "-b", "127.0.0.1", "-p", str(self.port), "-v", "0", app]
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
        deadline = time.monotonic() + timeout
        headers = {"Authorization": f"Bearer {token}"}
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"{self.kind} exited at start:\n{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/api/learn/", headers=headers).status_code == 200:
                    return
            time.sleep(0.1)
        raise BenchError(f"{self.kind} did not answer within {timeout:.0f} s:\n{self.log_tail()}")

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


def inproc(env: dict[str, str], task: str, **kwargs: Any) -> Any:
    """Run a task of bench/inproc.py inside a Django process set up on this section's database."""
    import orjson

    result = subprocess.run(
        [sys.executable, "-m", "bench.inproc", task, orjson.dumps(kwargs).decode()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise BenchError(f"bench.inproc {task} failed:\n{result.stderr[-4000:]}")
    return orjson.loads(result.stdout.strip().splitlines()[-1])["result"]
