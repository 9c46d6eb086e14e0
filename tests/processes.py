"""Run the project as an operator would: a fresh Python process with only the environment given.

Settings are read once per process, so what they do with an environment is seen from outside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
