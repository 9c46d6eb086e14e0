"""Agreement per question, checked against the `krippendorff` package on seeded random data
with missing values: nominal, ordinal and interval directly; a multiple choice and spans
against the package with the distance they pool (options or labels differing, |A ^ B|), each
answer written as a bit mask of its options."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import pytest

from feedback.rubrics.agreement import (
    QuestionAgreement,
    level_of,
    question_agreement,
    rubric_agreement,
)
from feedback.rubrics.questions import (
    BooleanQuestion,
    CategoricalQuestion,
    NumericQuestion,
    SpansQuestion,
    TextQuestion,
    rubric_from,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from feedback.rubrics.agreement import Rating

OPTIONS = ["poor", "fair", "good", "great"]
GRADE = CategoricalQuestion(key="grade", label="Grade", options=OPTIONS)
ORDERED = CategoricalQuestion(key="grade", label="Grade", options=OPTIONS, ordered=True)
TAGS = CategoricalQuestion(key="tags", label="Tags", options=["x", "y", "z"], multiple=True)
SCORE = NumericQuestion(key="score", label="Score", min=0, max=10)
SAFE = BooleanQuestion(key="safe", label="Safe")
ERRORS = SpansQuestion(key="errors", label="Errors", options=["wrong", "odd"])
NOTE = TextQuestion(key="note", label="Note")


def reliability(seed: int, values: int, coders: int = 5, units: int = 40) -> NDArray[np.float64]:
    """A coders x units matrix of values 0..values-1, about a third missing (NaN)."""
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, values, size=(coders, units)).astype(np.float64)
    # Some agreement, so that alpha is not only noise around 0.
    matrix[1::2] = np.where(rng.random((coders // 2, units)) < 0.5, matrix[0], matrix[1::2])
    matrix[rng.random(matrix.shape) < 0.35] = np.nan
    return matrix


def ratings_of(matrix: NDArray[np.float64], value: Any = float) -> list[Rating]:
    """(unit, value) for each value present, as the wiring passes them: coder by coder."""
    return [
        (f"turn-{unit}", value(matrix[coder, unit]))
        for coder in range(matrix.shape[0])
        for unit in range(matrix.shape[1])
        if not np.isnan(matrix[coder, unit])
    ]


def hamming(v1: Any, v2: Any, i1: Any, i2: Any, n_v: Any, dtype: Any = np.float64) -> Any:
    """How many bits two bit masks differ by: the pooled 0/1 distance, for the package."""
    differ = np.bitwise_xor(np.asarray(v1, dtype=np.int64), np.asarray(v2, dtype=np.int64))
    return np.vectorize(lambda bits: bin(int(bits)).count("1"))(differ).astype(dtype)


def package(matrix: NDArray[np.float64], level: Any) -> float:
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))


def option(index: float) -> str:
    return OPTIONS[int(index)]


@pytest.mark.parametrize("seed", range(5))
def test_a_categorical_question_is_nominal_as_the_package_says(seed: int) -> None:
    matrix = reliability(seed, len(OPTIONS))
    found = question_agreement(GRADE, ratings_of(matrix, option))
    assert found.level == "nominal"
    assert found.alpha == pytest.approx(package(matrix, "nominal"), abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_an_ordered_categorical_question_is_ordinal_as_the_package_says(seed: int) -> None:
    matrix = reliability(seed, len(OPTIONS))
    found = question_agreement(ORDERED, ratings_of(matrix, option))
    assert found.level == "ordinal"
    assert found.alpha == pytest.approx(package(matrix, "ordinal"), abs=1e-9)
    assert found.alpha != pytest.approx(package(matrix, "nominal"), abs=1e-6)


def test_the_ordinal_level_follows_the_options_order_not_their_names() -> None:
    matrix = reliability(7, len(OPTIONS))
    reversed_names = CategoricalQuestion(
        key="grade", label="Grade", options=OPTIONS[::-1], ordered=True
    )
    flipped = question_agreement(reversed_names, ratings_of(matrix, option))
    assert flipped.alpha == pytest.approx(package(matrix, "ordinal"), abs=1e-9)
    shuffled = CategoricalQuestion(
        key="grade", label="Grade", options=["fair", "great", "poor", "good"], ordered=True
    )
    order = {name: float(place) for place, name in enumerate(shuffled.options)}
    renumbered = np.vectorize(lambda v: np.nan if np.isnan(v) else order[option(v)])(matrix)
    found = question_agreement(shuffled, ratings_of(matrix, option))
    assert found.alpha == pytest.approx(package(renumbered, "ordinal"), abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_a_numeric_question_is_interval_as_the_package_says(seed: int) -> None:
    matrix = reliability(seed, 11) * 0.5 + 1.25
    found = question_agreement(SCORE, ratings_of(matrix))
    assert found.level == "interval"
    assert found.alpha == pytest.approx(package(matrix, "interval"), abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_a_boolean_question_is_nominal_as_the_package_says(seed: int) -> None:
    matrix = reliability(seed, 2)
    found = question_agreement(SAFE, ratings_of(matrix, lambda v: bool(v)))
    assert found.level == "nominal"
    assert found.alpha == pytest.approx(package(matrix, "nominal"), abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_a_multiple_choice_pools_each_options_presence(seed: int) -> None:
    masks = reliability(seed, 2 ** len(TAGS.options))

    def options_of(mask: float) -> list[str]:
        return [o for bit, o in enumerate(TAGS.options) if int(mask) >> bit & 1]

    found = question_agreement(TAGS, ratings_of(masks, options_of))
    assert found.level == "nominal"
    assert found.alpha == pytest.approx(package(masks, hamming), abs=1e-9)


def spans_data(seed: int, lengths: list[int], coders: int = 3) -> tuple[list[Rating], Any]:
    """Random span answers, and the same as a coders x characters matrix of label bit masks."""
    rng = np.random.default_rng(seed)
    ratings: list[Rating] = []
    columns = []
    for unit, length in enumerate(lengths):
        block = np.full((coders, length), np.nan)
        for coder in range(coders):
            if rng.random() < 0.2:
                continue  # this coder did not rate this turn
            marks = np.zeros(length, dtype=np.int64)
            spans = []
            for _ in range(int(rng.integers(0, 4))):
                start = int(rng.integers(0, length - 1))
                end = int(rng.integers(start + 1, length + 1))
                label = int(rng.integers(0, len(ERRORS.options)))
                spans.append({"start": start, "end": end, "label": ERRORS.options[label]})
                marks[start:end] |= 1 << label
            ratings.append((unit, spans))
            block[coder] = marks
        columns.append(block)
    return ratings, np.hstack(columns)


@pytest.mark.parametrize("seed", range(5))
def test_spans_agree_character_by_character_pooled_over_the_labels(seed: int) -> None:
    lengths = [30, 12, 45, 20, 8]
    ratings, characters = spans_data(seed, lengths)
    found = question_agreement(ERRORS, ratings, response_lengths=dict(enumerate(lengths)))
    assert found.level == "nominal"
    assert found.alpha == pytest.approx(package(characters, hamming), abs=1e-9)


def test_spans_count_turns_and_answers_not_characters() -> None:
    ratings = [
        ("a", [{"start": 0, "end": 4, "label": "odd"}]),
        ("a", [{"start": 1, "end": 4, "label": "odd"}]),
        ("b", []),
        ("b", [{"start": 2, "end": 3, "label": "wrong"}]),
        ("c", []),
    ]
    found = question_agreement(ERRORS, ratings, response_lengths={"a": 10, "b": 5, "c": 7})
    assert (found.units, found.ratings) == (2, 4)
    assert found.alpha is not None


def test_spans_need_each_turns_response_length() -> None:
    ratings: list[Rating] = [("a", []), ("a", [])]
    with pytest.raises(ValueError, match="length"):
        question_agreement(ERRORS, ratings, response_lengths={})


def test_a_span_outside_its_response_is_an_error_of_the_caller() -> None:
    ratings = [("a", [{"start": 0, "end": 11, "label": "odd"}]), ("a", [])]
    with pytest.raises(ValueError, match="span"):
        question_agreement(ERRORS, ratings, response_lengths={"a": 10})


def test_it_counts_only_units_rated_twice_or_more() -> None:
    ratings = [("a", 1.0), ("a", 2.0), ("b", 3.0), ("c", 1.0), ("c", 4.0), ("c", 4.0)]
    found = question_agreement(SCORE, ratings)
    assert (found.units, found.ratings) == (2, 5)
    assert found.alpha == pytest.approx(
        package(np.array([[1.0, 3.0, 1.0], [2.0, np.nan, 4.0], [np.nan, np.nan, 4.0]]), "interval"),
        abs=1e-9,
    )


@pytest.mark.parametrize(
    ("question", "answers"),
    [
        (SCORE, [1.0, 5.0, 9.0]),
        (GRADE, ["poor", "good", "great"]),
        (ORDERED, ["poor", "good", "great"]),
        (SAFE, [True, False, False]),
        (TAGS, [["x"], ["y", "z"], []]),
    ],
)
def test_one_unit_has_no_alpha(question: Any, answers: list[Any]) -> None:
    found = question_agreement(question, [("only", a) for a in answers])
    assert (found.alpha, found.units, found.ratings) == (None, 1, 3)


@pytest.mark.parametrize(
    ("question", "answer"),
    [(SCORE, 4.0), (GRADE, "fair"), (ORDERED, "fair"), (SAFE, True), (TAGS, ["x", "z"])],
)
def test_no_variation_has_no_alpha(question: Any, answer: Any) -> None:
    found = question_agreement(question, [(unit, answer) for unit in "abc" for _ in range(2)])
    assert (found.alpha, found.units, found.ratings) == (None, 3, 6)


def test_spans_no_one_marked_have_no_alpha() -> None:
    ratings: list[Rating] = [(unit, []) for unit in "ab" for _ in range(3)]
    found = question_agreement(ERRORS, ratings, response_lengths={"a": 5, "b": 9})
    assert (found.alpha, found.units, found.ratings) == (None, 2, 6)


def test_no_ratings_have_no_alpha() -> None:
    for question in (SCORE, GRADE, ORDERED, SAFE, TAGS):
        assert question_agreement(question, []) == QuestionAgreement(
            question.key, question.kind, level_of(question) or "nominal", None, 0, 0
        )
    assert question_agreement(ERRORS, [], response_lengths={}).alpha is None


def test_perfect_agreement_is_one() -> None:
    ratings = [(u, v) for u, v in [("a", "poor"), ("b", "good"), ("c", "great")] for _ in "xy"]
    assert question_agreement(GRADE, ratings).alpha == pytest.approx(1.0)
    assert question_agreement(ORDERED, ratings).alpha == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("question", "answer"),
    [(GRADE, "best"), (ORDERED, 2), (TAGS, ["w"]), (SAFE, 1)],
)
def test_an_answer_the_question_does_not_take_is_an_error_of_the_caller(
    question: Any, answer: Any
) -> None:
    ratings = [("a", answer), ("a", answer)]
    with pytest.raises(ValueError):
        question_agreement(question, ratings)


def test_a_text_question_has_no_level() -> None:
    assert level_of(NOTE) is None
    with pytest.raises(ValueError, match="no level"):
        question_agreement(NOTE, [("a", "x"), ("a", "y")])


def test_the_rubric_agreement_is_each_question_but_text_in_order() -> None:
    rubric = rubric_from(
        {"questions": [q.model_dump(mode="json") for q in (SCORE, NOTE, GRADE, SAFE, ERRORS, TAGS)]}
    )
    ratings: dict[str, list[Rating]] = {"score": [("a", 1.0), ("a", 3.0), ("b", 2.0), ("b", 2.0)]}
    found = rubric_agreement(rubric, ratings, response_lengths={})
    assert [(f.key, f.level) for f in found] == [
        ("score", "interval"),
        ("grade", "nominal"),
        ("safe", "nominal"),
        ("errors", "nominal"),
        ("tags", "nominal"),
    ]
    assert found[0].alpha == pytest.approx(
        package(np.array([[1.0, 2.0], [3.0, 2.0]]), "interval"), abs=1e-9
    )
    assert all(f.alpha is None and f.units == 0 for f in found[1:])
