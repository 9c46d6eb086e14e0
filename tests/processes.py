"""Run the project as an operator would: a fresh Python process with only the environment given.

Settings are read once per process, so what they do with an environment is seen from outside.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PYTHON = str(Path(sys.executable))


def clean_env(tmp_path: Path, **values: str) -> dict[str, str]:
    """A plain shell's environment: PATH and HOME, a var dir and no dev env file of the repo."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "LEARNPORTAL_VAR_DIR": str(tmp_path / "var"),
        "LEARNPORTAL_ENV_FILE": str(tmp_path / "no-such.env"),
    }
    env.update(values)
    return env


def manage(
    *args: str, env: dict[str, str], cwd: Path = REPO, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, str(cwd / "manage.py"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def python_json(code: str, *, env: dict[str, str]) -> dict[str, Any]:
    """Run `code` after django.setup(); it prints one JSON object, which is returned."""
    prologue = "import json, django\ndjango.setup()\n"
    result = subprocess.run(
        [PYTHON, "-c", prologue + code],
        cwd=REPO,
        env={"DJANGO_SETTINGS_MODULE": "learnportal.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def database_url() -> str:
    """The URL of this test run's database (a transactional test's rows are committed there),
    for a server process of the test's own."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "127.0.0.1"
    return f"postgres://{user}{password}@{host}:{db.get('PORT') or 5432}/{db['NAME']}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve(env: dict[str, str], log: Path, *options: str) -> tuple[str, subprocess.Popen[bytes]]:
    """`learnportal.asgi` in a uvicorn process of its own, with its lifespan and uvicorn's
    `options`: its base URL and the process.

    The socket listens before uvicorn starts (it takes it with --fd): early requests wait in the
    backlog, so nobody polls for the port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    command = [PYTHON, "-m", "uvicorn", "learnportal.asgi:application", "--no-access-log"]
    command += ["--fd", str(sock.fileno()), "--log-level", "warning", *options]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=REPO, env=env, pass_fds=[sock.fileno()], stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()
    return url, process


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


class RedisServer:
    """A redis-server of the test's own on a free loopback port, to kill and start again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port)]
        command += ["--save", "", "--appendonly", "no"]
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.02)
        raise AssertionError(f"redis-server did not listen on {self.port}")

    def kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None
