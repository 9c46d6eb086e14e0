"""Which new versions a rubric with answers may take: an answered question may be retired,
never removed, nor changed so that an answer it took no longer fits."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.rubrics.questions import Rubric, rubric_from
from feedback.rubrics.versions import rubric_change_refusal
from learnportal_protocol.errors import ErrorCode

NUMERIC: dict[str, Any] = {
    "kind": "numeric",
    "key": "score",
    "label": "Score",
    "min": 0,
    "max": 10,
    "step": 1,
}
ORDERED: dict[str, Any] = {
    "kind": "categorical",
    "key": "grade",
    "label": "Grade",
    "options": ["low", "mid", "high"],
    "ordered": True,
}
TAGS: dict[str, Any] = {
    "kind": "categorical",
    "key": "tags",
    "label": "Tags",
    "options": ["x", "y"],
    "multiple": True,
}
TEXT: dict[str, Any] = {"kind": "text", "key": "note", "label": "Note", "max_length": 100}
SPANS: dict[str, Any] = {
    "kind": "spans",
    "key": "errors",
    "label": "Errors",
    "options": ["wrong", "odd"],
}
SAFE: dict[str, Any] = {"kind": "boolean", "key": "safe", "label": "Safe"}
OLD: list[dict[str, Any]] = [NUMERIC, ORDERED, TAGS, TEXT, SPANS, SAFE]
EVERY_KEY = {"score", "grade", "tags", "note", "errors", "safe"}


def rubric(*questions: dict[str, Any]) -> Rubric:
    return rubric_from({"questions": list(questions)})


def changed(key: str, **fields: Any) -> Rubric:
    """The old rubric with question `key`'s fields changed."""
    return rubric(*({**q, **fields} if q["key"] == key else q for q in OLD))


def refusal_of(new: Rubric, answered: set[str] = EVERY_KEY) -> list[dict[str, Any]]:
    refusal = rubric_change_refusal(rubric(*OLD), new, answered)
    assert refusal is not None and refusal.code is ErrorCode.CONFLICT
    return refusal.details


def test_the_same_rubric_is_no_change() -> None:
    assert rubric_change_refusal(rubric(*OLD), rubric(*OLD), EVERY_KEY) is None


@pytest.mark.parametrize("key", sorted(EVERY_KEY))
def test_an_answered_question_may_be_retired_relabelled_and_made_required(key: str) -> None:
    new = changed(key, retired=True, label="New", description="Now", required=True, hotkeys=["q"])
    assert rubric_change_refusal(rubric(*OLD), new, EVERY_KEY) is None


def test_an_answered_question_may_not_disappear() -> None:
    new = rubric(*OLD[1:])
    [line] = refusal_of(new)
    assert line["loc"] == ["questions", "score"]
    assert line["msg"] == "score has answers: it may be retired, not removed"


def test_an_answered_question_may_not_change_kind() -> None:
    new = rubric(*(q for q in OLD if q["key"] != "safe"), {**TEXT, "key": "safe"})
    [line] = refusal_of(new)
    assert line["loc"] == ["questions", "safe"] and "boolean to text" in line["msg"]


def test_a_question_without_answers_may_change_or_go() -> None:
    new = rubric({"kind": "boolean", "key": "score", "label": "Score"}, SAFE)
    assert rubric_change_refusal(rubric(*OLD), new, {"safe"}) is None


def test_the_conflict_names_every_key_it_refuses() -> None:
    refusal = rubric_change_refusal(rubric(*OLD), rubric(SAFE), EVERY_KEY)
    assert refusal is not None
    assert refusal.message.endswith("score, grade, tags, note, errors.")
    assert [line["loc"] for line in refusal.details] == [
        ["questions", key] for key in ["score", "grade", "tags", "note", "errors"]
    ]


@pytest.mark.parametrize(
    "fields",
    [
        {"min": -5},
        {"max": 20},
        {"min": -2, "max": 12, "step": 0.5},
        {"step": 0.25},
        {"step": None},
        {"min": -3, "step": 1},
    ],
)
def test_a_numeric_question_may_widen_and_refine_its_grid(fields: dict[str, Any]) -> None:
    new = changed("score", **fields)
    assert rubric_change_refusal(rubric(*OLD), new, {"score"}) is None, fields


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"min": 1}, "may widen, not narrow"),
        ({"max": 9}, "may widen, not narrow"),
        ({"step": 2}, "every value of its old grid"),
        ({"min": -0.5, "max": 10.5, "step": 1}, "every value of its old grid"),
    ],
)
def test_a_numeric_question_may_not_narrow_nor_drop_old_grid_values(
    fields: dict[str, Any], said: str
) -> None:
    [line] = refusal_of(changed("score", **fields), {"score"})
    assert line["loc"] == ["questions", "score"] and said in line["msg"]


def test_a_continuous_question_may_not_gain_a_step() -> None:
    old = rubric({**NUMERIC, "step": None})
    refusal = rubric_change_refusal(old, rubric(NUMERIC), {"score"})
    assert refusal is not None and "may not gain a step" in refusal.details[0]["msg"]


def test_a_categorical_question_may_gain_options_anywhere_keeping_the_old_order() -> None:
    new = changed("grade", options=["none", "low", "mid", "good", "high"])
    assert rubric_change_refusal(rubric(*OLD), new, {"grade"}) is None
    assert (
        rubric_change_refusal(rubric(*OLD), changed("tags", options=["y", "z", "x"]), {"tags"})
        is None
    )


@pytest.mark.parametrize(
    ("key", "fields", "said"),
    [
        ("grade", {"options": ["low", "high"]}, "may not lose options ('mid')"),
        ("grade", {"options": ["high", "mid", "low"]}, "may not change order"),
        ("grade", {"ordered": False}, "multiple and ordered may not change"),
        ("tags", {"multiple": False}, "multiple and ordered may not change"),
        ("tags", {"options": ["x", "z"]}, "may not lose options ('y')"),
        ("errors", {"options": ["wrong"]}, "may not lose labels ('odd')"),
        ("note", {"max_length": 99}, "max_length may not shrink"),
        ("note", {"max_length": None, "label": "Note"}, None),
    ],
)
def test_a_choice_text_or_spans_question_keeps_what_its_answers_took(
    key: str, fields: dict[str, Any], said: str | None, settings: Any
) -> None:
    settings.LEARNPORTAL_RUBRIC_MAX_TEXT = 1000
    refusal = rubric_change_refusal(rubric(*OLD), changed(key, **fields), {key})
    if said is None:
        assert refusal is None
    else:
        assert refusal is not None
        [line] = refusal.details
        assert line["loc"] == ["questions", key] and said in line["msg"]


def test_a_text_question_may_not_shrink_to_the_hosts_default(settings: Any) -> None:
    settings.LEARNPORTAL_RUBRIC_MAX_TEXT = 50
    old = rubric({**TEXT, "max_length": 50})
    assert rubric_change_refusal(old, rubric({**TEXT, "max_length": None}), {"note"}) is None
    settings.LEARNPORTAL_RUBRIC_MAX_TEXT = 1000
    refusal = rubric_change_refusal(rubric({**TEXT, "max_length": None}), old, {"note"})
    assert refusal is not None and refusal.details[0]["loc"] == ["questions", "note"]
