"""A change of a stored value in words a reviewer reads: "+2 lines, -1 line", "deletes the file
(3 lines)", "0.5 → 0.8", "unset → read". Never a Python repr, never "null"."""

from __future__ import annotations

import difflib
from typing import Any

import orjson

UNSET = "unset"
SHORT = 60  # a value longer than this is cut, with an ellipsis


def value_text(value: Any) -> str:
    """One stored value, as a page shows it."""
    if value is None:
        return UNSET
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    text = " ".join(text.split())  # one line, whatever the value holds
    return text if len(text) <= SHORT else text[: SHORT - 1] + "…"


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def file_change(before: str | None, after: str | None) -> str:
    """What an edit does to a file: creates it, deletes it, or adds and removes lines."""
    if before is None and after is None:
        return "no file before or after"
    if before is None:
        return f"creates the file ({_lines(len((after or '').splitlines()))})"
    if after is None:
        return f"deletes the file ({_lines(len(before.splitlines()))})"
    added = removed = 0
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith(("+++", "---")):
            continue
        added += line.startswith("+")
        removed += line.startswith("-")
    if not added and not removed:
        return "no change in the text"
    parts = ([f"+{_lines(added)}"] if added else []) + ([f"-{_lines(removed)}"] if removed else [])
    return ", ".join(parts)


def is_file_edit(path: str, before: Any, after: Any) -> bool:
    return path.startswith("learnings/") and all(isinstance(v, str | None) for v in (before, after))


def change_text(path: str, before: Any, after: Any) -> str:
    """One edit of a path, in words: a file's line counts, or a value's old → new."""
    if is_file_edit(path, before, after):
        return file_change(before, after)
    return f"{value_text(before)} → {value_text(after)}"
