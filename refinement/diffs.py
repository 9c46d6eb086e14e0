"""What a proposal would change, shaped for the diff partials."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from refinement.review import describe


@dataclass(frozen=True)
class DiffLine:
    kind: str  # add, del, hunk, head, same
    text: str


def skill_file_diff(path: str, old: str | None, new: str | None) -> list[DiffLine]:
    """A unified line diff of a learnings file; an absent file diffs as empty."""
    lines = difflib.unified_diff(
        (old or "").splitlines(),
        (new or "").splitlines(),
        fromfile=f"a/{path}" if old is not None else "/dev/null",
        tofile=f"b/{path}" if new is not None else "/dev/null",
        lineterm="",
    )
    return [DiffLine(_kind(line), line) for line in lines]


def _kind(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "head"
    if line.startswith("@@"):
        return "hunk"
    return {"+": "add", "-": "del"}.get(line[:1], "same")


def weight_change(old: Any, new: Any) -> dict[str, Any]:
    delta = new - old if isinstance(old, int | float) and isinstance(new, int | float) else None
    return {"old": old, "new": new, "delta": delta}


def edits_summary(diff: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Each change in a history entry: its path, and what it was → what it became.

    Applies and rollbacks list edits (`before`, `after`); plans list proposals (`old_value`,
    `new_value`); a changed proposal lists its wire form before and after.
    """
    changes = []
    for item in diff:
        if isinstance(item.get("before"), dict) or isinstance(item.get("after"), dict):
            path = (item.get("after") or item.get("before") or {}).get("path", "?")
            changes.append({"path": path, "change": "the proposal changed"})
            continue
        before = item.get("before", item.get("old_value"))
        after = item.get("after", item.get("new_value"))
        changes.append(
            {"path": item.get("path", "?"), "change": f"{describe(before)} → {describe(after)}"}
        )
    return changes
