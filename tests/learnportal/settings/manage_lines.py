"""Run documented `manage.py` lines in one process, each as its shell line would: the words
after `manage.py` (quotes and a trailing comment read as the shell reads them; a `VAR=$(...)`
around the command only keeps what it prints), through Django's own command-line entry.

One Django start-up for every line rather than one each: the docs' lines are many, and a
start-up costs seconds. Usage: `python -m tests.learnportal.settings.manage_lines LINE...`,
from the folder the lines run in; it stops at the first line that fails, naming it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys

ASSIGNED = re.compile(r"^[A-Z_]+=\$\((?P<command>.*)\)\s*(?:#.*)?$")
PREFIX = [".venv/bin/python", "manage.py"]


def words_of(line: str) -> list[str]:
    """The arguments after `manage.py` of a documented line."""
    assigned = ASSIGNED.match(line)
    words = shlex.split(assigned["command"] if assigned else line, comments=True)
    if words[: len(PREFIX)] != PREFIX:
        raise ValueError(f"not a manage.py line: {line}")
    return words[len(PREFIX) :]


def main(lines: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
    import django
    from django.core.management import ManagementUtility

    django.setup()
    for line in lines:
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                ManagementUtility(["manage.py", *words_of(line)]).execute()
        except SystemExit as stopped:
            if stopped.code not in (0, None):
                print(f"FAILED ({stopped.code}): {line}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
