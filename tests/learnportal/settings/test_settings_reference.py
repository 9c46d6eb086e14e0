"""The settings reference (docs/reference/settings.md) says what learnportal/settings.py reads:
every variable the settings read has a row, every row is read, and each default is the code's.

The variables and their defaults are read from the source with `ast` (each call of a reader of
core/env.py, and the table of strategy parameters), the defaults evaluated in the settings'
own namespace, so a new setting or a changed default fails here until the page says so.
"""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from tests.processes import REPO

SETTINGS = REPO / "learnportal" / "settings.py"
PAGE = REPO / "docs" / "reference" / "settings.md"
READERS = {
    "env_str",
    "env_bool",
    "env_int",
    "env_float",
    "env_choice",
    "env_list",
    "env_origins",
    "env_proxy_ssl_header",
    "env_secret_key",
}
# Read by uvicorn (`make run --workers ${WEB_CONCURRENCY:-1}`), not by the settings.
ELSEWHERE = {"WEB_CONCURRENCY"}
UNITS = {"": 1, "KiB": 1024, "MiB": 1024 * 1024}


def read_by_the_settings() -> dict[str, object]:
    """Each variable the settings read, with its default (None where there is none)."""
    namespace = vars(importlib.import_module("learnportal.settings"))
    found: dict[str, object] = {}
    for node in ast.walk(ast.parse(SETTINGS.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in READERS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            default = None
            if len(node.args) > 1:
                expression = ast.Expression(node.args[1])
                default = eval(compile(expression, str(SETTINGS), "eval"), namespace)
            found[node.args[0].value] = default
    for name, variable in namespace["LEARNPORTAL_STRATEGY_VARIABLES"].items():
        found[variable] = namespace["strategy_params"][name].default
    return found


def documented() -> dict[str, str]:
    """Each variable of the page's table, with the text of its default."""
    rows: dict[str, str] = {}
    for line in PAGE.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        names = re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[0]) if line.startswith("| `") else []
        defaults = cells[1].split(", ") if len(names) > 1 else [cells[1]] if names else []
        assert len(defaults) == len(names), line
        rows.update(zip(names, defaults, strict=True))
    return rows


def default_matches(text: str, value: object) -> bool:
    """Whether the page's words for a default say the code's value (a number, a flag, a word)."""
    if value is None or value == "" or (isinstance(value, str) and "/" in value):
        return True  # no default, or a path in the checkout: said in words
    if isinstance(value, bool):
        return text.startswith("1" if value else "0")
    if isinstance(value, int | float):
        number = re.match(r"(\d+(?:\.\d+)?)(?: (KiB|MiB))?", text)
        return number is not None and float(number[1]) * UNITS[number[2] or ""] == value
    return text.startswith(f"`{value}`")


def test_every_variable_the_settings_read_has_a_row_and_every_row_is_read() -> None:
    assert set(documented()) == set(read_by_the_settings()) | ELSEWHERE


def test_each_default_on_the_page_is_the_codes() -> None:
    code = read_by_the_settings()
    wrong = {
        name: (text, code[name])
        for name, text in documented().items()
        if name in code and not default_matches(text, code[name])
    }
    assert wrong == {}


def test_the_web_concurrency_default_is_makes() -> None:
    default = documented()["WEB_CONCURRENCY"]
    assert f"${{WEB_CONCURRENCY:-{default}}}" in (REPO / "Makefile").read_text()


@pytest.mark.parametrize(
    ("text", "value", "matches"),
    [
        ("64 MiB", 64 * 1024 * 1024, True),
        ("32 MiB", 64 * 1024 * 1024, False),
        ("5", 5.0, True),
        ("0.03", 0.3, False),
        ("0 (production); 1 in `.env`", False, True),
        ("1 in production", False, False),
        ("`low`", "low", True),
        ("`evict`", "reject", False),
    ],
)
def test_a_default_is_read_as_its_words_say(text: str, value: object, matches: bool) -> None:
    assert default_matches(text, value) is matches
