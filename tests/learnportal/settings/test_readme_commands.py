"""The shell lines of the README and of the docs site (docs/) work as written: every `manage.py`
line after `make run`, every `make` target, every file a line names; every URL of their
examples follows HOST and PORT; `make run` installs the runtime dependencies only.

A plain shell: no DJANGO_DEBUG exported, only the dev env file that make writes. The var dir
and the dev env file are a temporary folder's, so the developer's database is not touched.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.learnportal.settings.manage_lines import words_of
from tests.processes import PYTHON, REPO, clean_env, manage

README = REPO / "README.md"


def documented_pages() -> list[Path]:
    """The README, then every page of the docs site: the order their lines run in."""
    return [README, *sorted((REPO / "docs").rglob("*.md"))]


def code_blocks(language: str, pages: list[Path] | None = None) -> list[str]:
    """The code blocks in this language of the pages (by default, all of them)."""
    pattern = rf"^```{language}\n(.*?)^```"
    return [
        block
        for page in (documented_pages() if pages is None else pages)
        for block in re.findall(pattern, page.read_text(), flags=re.MULTILINE | re.DOTALL)
    ]


def manage_lines(pages: list[Path] | None = None) -> list[str]:
    return [
        line
        for block in code_blocks("sh", pages)
        for line in block.splitlines()
        if "manage.py" in line
    ]


def code_lines(*languages: str) -> list[str]:
    """The lines of the code blocks in these languages, each without its comment."""
    return [
        re.split(r"\s#\s", line, maxsplit=1)[0]
        for language in languages
        for block in code_blocks(language)
        for line in block.splitlines()
    ]


def test_the_docs_show_the_commands_this_test_runs() -> None:
    assert any("createtoken my-agent --role agent" in line for line in manage_lines([README]))
    lines = manage_lines()
    assert len(lines) > len(manage_lines([README]))  # the docs' pages have theirs too
    command = re.compile(r"^([A-Z_]+=\$\()?\.venv/bin/python manage\.py ")
    assert all(command.match(line) for line in lines), lines


def test_every_manage_py_line_of_the_docs_works_after_make_run(tmp_path: Path) -> None:
    # The lines say `.venv/bin/python manage.py`: run them from a folder that has both.
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

    result = subprocess.run(
        [PYTHON, "-m", "tests.learnportal.settings.manage_lines", *manage_lines()],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_a_documented_line_is_run_as_the_shell_reads_it() -> None:
    assert words_of("TOKEN=$(.venv/bin/python manage.py createtoken a --role agent)   # once") == [
        "createtoken",
        "a",
        "--role",
        "agent",
    ]
    assert words_of(".venv/bin/python manage.py adduser al --password 'a long one'  # x") == [
        "adduser",
        "al",
        "--password",
        "a long one",
    ]


def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", (REPO / "Makefile").read_text(), re.MULTILINE))


def test_every_make_target_of_the_docs_exists() -> None:
    named = {
        found[1]
        for line in code_lines("sh")
        if (found := re.match(r"^(?:[A-Z_]+=\S+ )*make ([a-z][a-z-]*)", line))
    }
    assert {"run", "test", "docs", "lint"} <= named
    assert named - make_targets() == set()


FILE_NAMED = re.compile(r"""(?:^|[\s"'=])(\.?/?(?:clients|examples|tests|docs|bench)/[\w./-]*)""")


def test_every_file_a_shell_line_names_exists() -> None:
    named = {match.rstrip(".") for line in code_lines("sh") for match in FILE_NAMED.findall(line)}
    assert "examples/agent_loop.py" in named and "./clients/python" in named
    assert sorted(path for path in named if not (REPO / path).exists()) == []


PORTAL_URL = re.compile(r"""(?:https?|wss?)://(\S+)""")
FOLLOWS = ("${HOST:-127.0.0.1}:${PORT:-8000}", "{HOST}:{PORT}", "{os.environ.get('HOST'")


def test_every_portal_url_of_the_docs_follows_host_and_port() -> None:
    urls = [m for line in code_lines("sh", "python") for m in PORTAL_URL.findall(line)]
    assert len(urls) >= 6, urls  # the client, the agent loop, curl, websockets, A2E, schemathesis
    hard_wired = [url for url in urls if not url.startswith(FOLLOWS)]
    assert hard_wired == []


def test_the_shell_urls_of_the_docs_are_on_the_port_exported(tmp_path: Path) -> None:
    quoted = [
        quoted
        for line in code_lines("sh")
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


def test_the_agent_loop_is_shown_with_its_url_in_the_readme_and_its_tutorial() -> None:
    tutorial = REPO / "docs" / "tutorials" / "first-agent.md"
    for page in (README, tutorial):
        lines = [line for block in code_blocks("sh", [page]) for line in block.splitlines()]
        assert any("examples/agent_loop.py --url " in line for line in lines), page


def test_how_to_rate_is_one_link_from_the_top_of_the_readme() -> None:
    text = README.read_text()
    top = text.split("\n## ", 1)[0]
    assert "[how rating works](#five-minutes-as-an-annotator)" in top
    tour = text.split("\n## Five minutes as an annotator\n", 1)[1]
    assert "rate at `/queue/`" in tour.split("\n## ", 1)[0]


def test_the_readme_is_read_in_minutes() -> None:
    assert len(README.read_text().splitlines()) < 250


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


def test_make_test_builds_the_docs_strictly(tmp_path: Path) -> None:
    test = make_dry_run("test", tmp_path)
    assert "mkdocs build --strict" in test
