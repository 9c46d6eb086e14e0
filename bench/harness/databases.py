"""Fresh databases for the bench, the environment that points the app at one, and manage.py.

Each section gets a database of its own (a SQLite file under `var/bench-<pid>/`, or
`learnportal_bench_<pid>_<n>` on the PostgreSQL server given as the admin URL), so that the
development database is never touched; `drop_all` removes what a run made.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]  # the checkout: where manage.py and var/ are


class BenchError(RuntimeError):
    """A bench could not measure (a server that would not start, a task that failed)."""


def sqlite_connect(path: Path) -> sqlite3.Connection:
    """A plain driver connection with the app's pragmas (learnportal/settings.py): what the
    physical baselines write through, so that they pay the app's durability."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA cache_size=-65536")
    conn.execute("PRAGMA wal_autocheckpoint=10000")
    return conn


def sqlite_copy(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite database, its WAL included: a process that wrote it may
    have left its pages in the WAL (the app's pool keeps connections open until exit), which a
    copy of the file alone would miss."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def sqlite_path(db_env: dict[str, str]) -> Path:
    """The SQLite file of a database made by `Database.create`."""
    return Path(db_env["LEARNPORTAL_VAR_DIR"]) / "learnportal.sqlite3"


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
            return sqlite_connect(sqlite_path(env))
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
