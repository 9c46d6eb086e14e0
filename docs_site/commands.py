"""The project's management commands as a Markdown page, read from the commands themselves:
each one's help and its arguments as `manage.py NAME --help` prints them."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.core.management.base import BaseCommand

# Whose commands are the project's (Django's and the libraries' are theirs to document).
PROJECT_APPS = (
    "core.accounts",
    "core.projects",
    "feedback",
    "refinement",
    "webhooks",
    "learnportal",
)

# The options every Django command takes; the page says so once instead of under each command.
BASE_OPTIONS = {
    "--version",
    "--verbosity",
    "--settings",
    "--pythonpath",
    "--traceback",
    "--no-color",
    "--force-color",
    "--skip-checks",
}


def project_commands() -> dict[str, BaseCommand]:
    """Each command of the project's apps by name, sorted (Django set up)."""
    from django.core.management import get_commands, load_command_class

    return {
        name: load_command_class(app, name)
        for name, app in sorted(get_commands().items())
        if app in PROJECT_APPS
    }


def usage(name: str, command: BaseCommand) -> str:
    """What `manage.py NAME --help` prints, less the options every command has."""
    command.suppressed_base_arguments = BASE_OPTIONS
    parser = command.create_parser("manage.py", name)
    for action in parser._actions:  # Django adds --skip-checks past suppressed_base_arguments
        if "--skip-checks" in action.option_strings:
            action.help = argparse.SUPPRESS
    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width: the same everywhere
    text = parser.format_help()
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


def markdown(commands: dict[str, BaseCommand]) -> str:
    """A table of the commands, then each one's usage."""
    lines = ["| command | app | what it does |", "| --- | --- | --- |"]
    for name, command in commands.items():
        app = type(command).__module__.split(".management.")[0]
        summary = " ".join(str(command.help).split())
        lines.append(f"| [`{name}`](#{name.replace('_', '-')}) | `{app}` | {summary} |")
    lines.append("")
    for name, command in commands.items():
        lines += [f"### `{name}` {{#{name.replace('_', '-')}}}", "", "```text"]
        lines += [usage(name, command), "```", ""]
    return "\n".join(lines)
