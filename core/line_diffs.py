"""A unified line diff of two texts, shaped for the diff partial (templates/portal/partials/
line_diff.html): a learnings file's versions, a project's guidelines versions."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class DiffLine:
    kind: str  # add, del, hunk, head, same
    text: str


def line_diff(old: str, new: str, *, fromfile: str, tofile: str) -> list[DiffLine]:
    """`old` to `new` line by line, with three lines of context around each change."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=fromfile, tofile=tofile, lineterm=""
    )
    return [DiffLine(_kind(line), line) for line in lines]


def _kind(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "head"
    if line.startswith("@@"):
        return "hunk"
    return {"+": "add", "-": "del"}.get(line[:1], "same")
