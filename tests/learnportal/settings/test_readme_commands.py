"""Every `manage.py` line of the README's shell blocks works as written, after `make run`; every
URL of its examples follows HOST and PORT; `make run` installs the runtime dependencies only.

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
    subprocess.run([PYTHON, "-m", "core.env", str(env_file)], cwd=REPO, check=True)
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


def readme_code_lines(*languages: str) -> list[str]:
    """The lines of the README's code blocks in these languages, each without its comment."""
    text = (REPO / "README.md").read_text()
    found = []
    for language in languages:
        pattern = rf"^```{language}\n(.*?)^```"
        for block in re.findall(pattern, text, flags=re.MULTILINE | re.DOTALL):
            found += [re.split(r"\s#\s", line, maxsplit=1)[0] for line in block.splitlines()]
    return found


PORTAL_URL = re.compile(r"""(?:https?|wss?)://(\S+)""")
FOLLOWS = ("${HOST:-127.0.0.1}:${PORT:-8000}", "{HOST}:{PORT}", "{os.environ.get('HOST'")


def test_every_portal_url_of_the_readme_follows_host_and_port() -> None:
    urls = [m for line in readme_code_lines("sh", "python") for m in PORTAL_URL.findall(line)]
    assert len(urls) >= 6, urls  # the client, the agent loop, curl, websockets, A2E, schemathesis
    hard_wired = [url for url in urls if not url.startswith(FOLLOWS)]
    assert hard_wired == []


def test_the_shell_urls_of_the_readme_are_on_the_port_exported(tmp_path: Path) -> None:
    quoted = [
        quoted
        for line in readme_code_lines("sh")
        for quoted in re.findall(r'"((?:https?|wss?)://[^"]+)"', line)
    ]
    assert quoted
    for url in quoted:
        seen = subprocess.run(
            ["bash", "-c", f'printf %s "{url}"'],
            env=clean_env(tmp_path, PORT="18000"),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert re.match(r"(https?|wss?)://127\.0\.0\.1:18000(/|$)", seen), seen
        default = subprocess.run(
            ["bash", "-c", f'printf %s "{url}"'],
            env=clean_env(tmp_path),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert re.match(r"(https?|wss?)://127\.0\.0\.1:8000(/|$)", default), default


def test_the_agent_loop_is_shown_with_its_url() -> None:
    lines = readme_code_lines("sh")
    assert any("examples/agent_loop.py --url " in line for line in lines)


def test_how_to_rate_is_one_link_from_the_top_of_the_readme() -> None:
    text = (REPO / "README.md").read_text()
    top = text.split("\n## ", 1)[0]
    assert "[how rating works](#the-portal)" in top
    portal = text.split("\n## The portal\n", 1)[1]
    assert "rate at `/queue/`" in portal.split("\n## ", 1)[0]


def make_dry_run(target: str, tmp_path: Path) -> str:
    """What `make TARGET` would run in a fresh clone (a venv not made yet)."""
    return subprocess.run(
        ["make", "-n", target, f"VENV={tmp_path / 'venv'}", f"ENV_FILE={tmp_path / '.env'}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_make_run_installs_the_runtime_dependencies_only(tmp_path: Path) -> None:
    run = make_dry_run("run", tmp_path)
    assert "pip install --quiet .\n" in run
    assert ".[dev" not in run
    test = make_dry_run("test", tmp_path)
    assert 'pip install --quiet ".[dev]"' in test and "pytest" in test
