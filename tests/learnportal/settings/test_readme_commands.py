"""Every `manage.py` line of the README's shell blocks works as written, after `make run`.

A plain shell: no DJANGO_DEBUG exported, only the dev env file that make writes. The var dir
and the dev env file are a temporary folder's, so the developer's database is not touched.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.processes import PYTHON, REPO, clean_env, manage


def readme_manage_lines() -> list[str]:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if "manage.py" in line]


def test_the_readme_shows_the_commands_this_test_runs() -> None:
    lines = readme_manage_lines()
    assert any("createtoken my-agent --role agent" in line for line in lines)
    command = re.compile(r"^([A-Z_]+=\$\()?\.venv/bin/python manage\.py ")
    assert all(command.match(line) for line in lines), lines


def test_every_manage_py_line_of_the_readme_works_after_make_run(tmp_path: Path) -> None:
    # The README's lines say `.venv/bin/python manage.py`: run them from a folder that has both.
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    (tmp_path / "manage.py").symlink_to(REPO / "manage.py")
    (tmp_path / "examples").symlink_to(REPO / "examples")  # the files the import lines read
    env_file = tmp_path / ".env"
    env = clean_env(tmp_path, LEARNPORTAL_ENV_FILE=str(env_file))
    # What make does before it serves: write the dev env file once, migrate, load the demo.
    subprocess.run([PYTHON, "-m", "learnportal.env", str(env_file)], cwd=REPO, check=True)
    for step in (("migrate", "--no-input", "-v", "0"), ("seed_demo", "--if-empty")):
        result = manage(*step, env=env)
        assert result.returncode == 0, result.stderr

    for line in readme_manage_lines():
        result = subprocess.run(
            ["bash", "-c", line],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, f"{line}\n{result.stderr}"
