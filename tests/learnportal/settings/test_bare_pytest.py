"""A bare `pytest` works in a fresh clone: no `.env`, no `make`, no DJANGO_DEBUG."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from tests.processes import PYTHON, REPO, clean_env

if TYPE_CHECKING:
    from pathlib import Path


def test_a_bare_pytest_runs_with_nothing_set(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            PYTHON,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/protocol/test_defaults.py",
        ],
        cwd=REPO,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
