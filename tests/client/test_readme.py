"""The client's README (clients/python/README.md) works as written.

Each Python block runs against a live server, with LEARNPORTAL_URL and LEARNPORTAL_TOKEN set as
the README says, and prints what its `# prints:` comments say. All the blocks type check with
`mypy --strict` against the built wheel, as an agent's code would see the installed client;
and the same check refuses a strategy and a scope the protocol does not name.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.processes import REPO

if TYPE_CHECKING:
    from pathlib import Path

    from tests.client.conftest import Portal
    from tests.conftest import InstalledClient

README = REPO / "clients/python/README.md"
PRINTS = re.compile(r"#\s*prints:\s*(.+)$")


def python_blocks() -> list[tuple[str, str]]:
    """Each Python block of the README, named by the heading it is under and its place there."""
    blocks: list[tuple[str, str]] = []
    heading, n = "", 0
    lines: list[str] | None = None  # the block being read, if any
    for line in README.read_text().splitlines(keepends=True):
        if lines is not None:
            if line.startswith("```"):
                n += 1
                blocks.append((f"{heading}-{n}", "".join(lines)))
                lines = None
            else:
                lines.append(line)
        elif line.startswith("## "):
            heading, n = line[3:].strip().lower().replace(" ", "-"), 0
        elif line.startswith("```python"):
            lines = []
    return blocks


def in_order(expected: list[str], printed: list[str]) -> bool:
    """Whether `printed` holds the lines `expected`, in that order (other lines between)."""
    rest = iter(printed)
    return all(any(line == seen for seen in rest) for line in expected)


BLOCKS = python_blocks()


def test_the_readme_shows_each_part_of_the_client_in_code() -> None:
    shown = {name.rsplit("-", 1)[0] for name, _ in BLOCKS}
    assert shown >= {"quick-start", "awaited", "sessions", "the-buffer", "errors", "retries"}


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=[name for name, _ in BLOCKS])
def test_each_python_block_of_the_readme_runs_against_a_live_host_and_prints_what_it_says(
    code: str, portal: Portal, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LEARNPORTAL_URL", portal.url)
    monkeypatch.setenv("LEARNPORTAL_TOKEN", portal.token)
    sigterm = signal.getsignal(signal.SIGTERM)  # flush_on_signals() replaces it
    try:
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    finally:
        signal.signal(signal.SIGTERM, sigterm)
    printed = capsys.readouterr().out.splitlines()
    expected = [m.group(1).strip() for line in code.splitlines() if (m := PRINTS.search(line))]
    assert in_order(expected, printed), printed


MISUSE = """
from learnportal_client import LearnClient

with LearnClient() as client:
    client.adapt(strategy="thompson")
    client.refinement_plan(scope="everywhere")
"""


def test_mypy_passes_the_readme_and_refuses_a_strategy_or_scope_the_protocol_does_not_name(
    installed_client: InstalledClient, tmp_path: Path
) -> None:
    for name, code in BLOCKS:
        (tmp_path / f"readme_{name.replace('-', '_')}.py").write_text(code)
    (tmp_path / "misuse.py").write_text(MISUSE)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", "cache", "."],
        cwd=tmp_path,
        # The unpacked wheel on the path, as site-packages: mypy reads an installed package only
        # if it says it is typed (py.typed), as it would for an agent's code.
        env={**os.environ, "PYTHONPATH": str(installed_client.site)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[:2] for line in errors] == [["misuse.py", "5"], ["misuse.py", "6"]]
    assert "strategy" in errors[0] and "scope" in errors[1]
