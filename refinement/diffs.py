"""What a proposal would change, shaped for the diff partials."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from core.line_diffs import DiffLine, line_diff
from refinement.change_text import change_text, is_file_edit
from refinement.trust_region import max_step


def skill_file_diff(path: str, old: str | None, new: str | None) -> list[DiffLine]:
    """A unified line diff of a learnings file; an absent file diffs as empty."""
    return line_diff(
        old or "",
        new or "",
        fromfile=f"a/{path}" if old is not None else "/dev/null",
        tofile=f"b/{path}" if new is not None else "/dev/null",
    )


def weight_change(old: Any, new: Any) -> dict[str, Any]:
    delta = new - old if isinstance(old, int | float) and isinstance(new, int | float) else None
    return {"old": old, "new": new, "delta": delta}


def edits_summary(diff: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each change in a history entry: its path, what it did in words (`change_text`), and a
    file's line diff.

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
        path = str(item.get("path", "?"))
        change: dict[str, Any] = {"path": path, "change": change_text(path, before, after)}
        if is_file_edit(path, before, after):
            change["lines"] = skill_file_diff(path, before, after)
        changes.append(change)
    return changes


@dataclass(frozen=True)
class SideBySideRow:
    """One row of a side-by-side diff: the old line and the new one (0 and "" where absent)."""

    kind: str  # same, change, del, add, gap
    old_number: int
    old_text: str
    new_number: int
    new_text: str


CONTEXT_LINES = 3


def side_by_side(old: str | None, new: str | None) -> list[SideBySideRow]:
    """A learnings file's change as rows of old | new, with a few lines of context round each."""
    before, after = (old or "").splitlines(), (new or "").splitlines()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    rows: list[SideBySideRow] = []
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        if rows:
            rows.append(SideBySideRow("gap", 0, "", 0, ""))
        for tag, i1, i2, j1, j2 in group:
            for k in range(max(i2 - i1, j2 - j1)):
                i, j = i1 + k, j1 + k
                has_old, has_new = i < i2, j < j2
                kind = {"equal": "same", "replace": "change", "insert": "add"}.get(tag, "del")
                if tag == "replace" and not (has_old and has_new):
                    kind = "del" if has_old else "add"
                rows.append(
                    SideBySideRow(
                        kind,
                        i + 1 if has_old else 0,
                        before[i] if has_old else "",
                        j + 1 if has_new else 0,
                        after[j] if has_new else "",
                    )
                )
    return rows


def weight_step(old: Any, new: Any, auto_apply_max_risk: str) -> dict[str, Any]:
    """A weight's change with its trust-region step: how far it moves, and how far a machine
    could move it alone (`trust_region.max_step` at the auto-apply limit)."""
    change = weight_change(old, new)
    limit = max_step(auto_apply_max_risk)
    step = abs(change["delta"]) if change["delta"] is not None else None
    return {
        **change,
        "step": step,
        "limit": limit,
        "auto_apply_max_risk": auto_apply_max_risk,
        "within": step is not None and step <= limit + 1e-9,
    }
