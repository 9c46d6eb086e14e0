"""A proposal's diff as the plan page shows it: a learnings file side by side, a weight with
its trust-region step."""

from __future__ import annotations

from refinement.change_text import change_text, file_change, value_text
from refinement.diffs import SideBySideRow, edits_summary, side_by_side, weight_step


def test_a_changed_line_sits_beside_the_line_it_replaces() -> None:
    rows = side_by_side("a\nb\nc\n", "a\nB\nc\nd\n")
    assert rows == [
        SideBySideRow("same", 1, "a", 1, "a"),
        SideBySideRow("change", 2, "b", 2, "B"),
        SideBySideRow("same", 3, "c", 3, "c"),
        SideBySideRow("add", 0, "", 4, "d"),
    ]


def test_a_replacement_longer_on_one_side_leaves_the_other_blank() -> None:
    rows = side_by_side("x\n", "y\nz\n")
    assert [(r.kind, r.old_text, r.new_text) for r in rows] == [
        ("change", "x", "y"),
        ("add", "", "z"),
    ]


def test_far_apart_changes_are_shown_with_a_gap_between_their_context() -> None:
    old = "\n".join(str(i) for i in range(20))
    new = old.replace("1\n", "one\n", 1).replace("18", "eighteen")
    kinds = [r.kind for r in side_by_side(old, new)]
    assert "gap" in kinds and kinds.count("change") == 2


def test_a_deleted_file_is_all_removed_lines() -> None:
    assert {r.kind for r in side_by_side("a\nb\n", None)} == {"del"}


def test_a_weight_step_beyond_the_trust_region_says_so() -> None:
    step = weight_step(0.5, 0.65, "low")
    assert step["step"] == 0.15000000000000002 and step["limit"] == 0.1
    assert step["within"] is False
    assert weight_step(0.5, 0.55, "low")["within"] is True
    assert weight_step(0.5, 0.9, "medium")["within"] is False


def test_a_file_change_is_counted_in_lines_never_shown_as_a_repr() -> None:
    assert file_change("a\nb\n", "a\nB\nc\n") == "+2 lines, -1 line"
    assert file_change(None, "x\ny\n") == "creates the file (2 lines)"
    assert file_change("x\n", None) == "deletes the file (1 line)"
    assert file_change("same\n", "same\n") == "no change in the text"


def test_a_value_change_reads_unset_not_null_or_quotes() -> None:
    assert change_text("router.weights.alpha", None, 0.5) == "unset → 0.5"
    assert change_text("steps.s1.learnings_access", "read", "read-write") == "read → read-write"
    assert change_text("steps.s1.lock_learnings", False, True) == "off → on"
    assert change_text("learnings/_global/SKILL.md", "a\n", None) == "deletes the file (1 line)"
    assert value_text("x" * 100).endswith("…") and len(value_text("x" * 100)) == 60


def test_a_history_entrys_changes_say_what_happened_to_each_file() -> None:
    summary = edits_summary(
        [{"path": "learnings/_global/SKILL.md", "before": None, "after": "# Skill\nuse it\n"}]
    )
    assert summary[0]["change"] == "creates the file (2 lines)"
    assert [line.kind for line in summary[0]["lines"]] == ["head", "head", "hunk", "add", "add"]
