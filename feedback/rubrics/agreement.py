"""How much annotators agree on each question of a rubric: Krippendorff's alpha at the level
of measurement its kind implies, in plain numpy, O(values) but for the sort spans need.

- `numeric`: interval, by feedback.agreement's closed form.
- `categorical` (one option) and `boolean`: nominal.
- `categorical`, `ordered`: ordinal. Krippendorff's ordinal distance between options c and k is
  (sum of n_g for g from c to k - (n_c + n_k) / 2)**2, with n_g the pairable values of option g;
  that is (r_k - r_c)**2 with r_c = n_0 + ... + n_c - n_c / 2, each option's mid-rank: so the
  ordinal alpha is the interval alpha of the mid-ranks, and takes the same closed form.
- `categorical`, `multiple`: nominal on each option's presence, pooled: an answer is the set of
  its options, and two answers differ by the options one has and the other has not (the distance
  |A ^ B|, a sum of one 0/1 distance per option); MASI and other set distances are out of scope.
- `spans`: the same on characters: each character of the response is a unit, and an annotator's
  value there is the set of labels whose spans cover it (unmarked characters included: every
  annotator of the turn gave them the empty set), pooled over the labels.
- `text` has no level: `rubric_agreement` leaves it out.

A pooled 0/1 alpha is interval alpha on vectors of indicators, and its sums are the sums of each
indicator's (centred, so that their spreads add up): 1 - (n - 1) / n * sum_d O_d / sum_d S_d,
where option d's observed disagreement is O_d = sum_u (m_u k_ud - k_ud**2) / (m_u - 1) (k_ud of
unit u's m_u values have d) and its spread S_d = N_d - N_d**2 / n (N_d of all n values have it).

`units` and `ratings` count the turns that at least two people answered, and their answers; as
in feedback.agreement, alpha is None with fewer than two such turns or no variation among them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from feedback.agreement import Alpha, alpha_interval, alpha_interval_from_sums
from feedback.rubrics.answers import merged
from feedback.rubrics.questions import (
    AnyQuestion,
    BooleanQuestion,
    CategoricalQuestion,
    NumericQuestion,
    Rubric,
    SpansQuestion,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

Level = Literal["nominal", "ordinal", "interval"]
Rating = tuple[Hashable, Any]  # (unit, answer): one per annotator and unit, e.g. (turn id, value)


@dataclass(frozen=True)
class QuestionAgreement:
    key: str
    kind: str
    level: Level
    alpha: float | None
    units: int  # turns answered by two people or more
    ratings: int  # their answers


def level_of(question: AnyQuestion) -> Level | None:
    """The level of measurement of a question's answers; None for text, which has none."""
    if isinstance(question, NumericQuestion):
        return "interval"
    if isinstance(question, CategoricalQuestion) and question.ordered:
        return "ordinal"
    if isinstance(question, CategoricalQuestion | BooleanQuestion | SpansQuestion):
        return "nominal"
    return None


def rubric_agreement(
    rubric: Rubric,
    ratings: Mapping[str, Sequence[Rating]],
    *,
    response_lengths: Mapping[Hashable, int] | None = None,
) -> list[QuestionAgreement]:
    """Each question's agreement but text's, in the rubric's order, from the clean answers of
    each key (feedback.rubrics.answers); `response_lengths` (characters, by unit) for spans."""
    return [
        question_agreement(
            question, ratings.get(question.key, ()), response_lengths=response_lengths
        )
        for question in rubric.questions
        if level_of(question) is not None
    ]


def question_agreement(
    question: AnyQuestion,
    ratings: Sequence[Rating],
    *,
    response_lengths: Mapping[Hashable, int] | None = None,
) -> QuestionAgreement:
    """Alpha of one question over `ratings`, its clean answers (ValueError for an answer the
    question does not take, or a spans question without its units' `response_lengths`)."""
    level = level_of(question)
    if level is None:
        raise ValueError(f"{question.key} is a {question.kind} question: it has no level")
    labels, codes, values = pairable(ratings)
    result: Alpha
    if isinstance(question, NumericQuestion):
        result = alpha_interval(codes, np.asarray(values, dtype=np.float64))
    elif isinstance(question, CategoricalQuestion) and question.ordered:
        result = _ordinal(codes, _indexes(question.options, values))
    elif isinstance(question, CategoricalQuestion):
        chosen = values if question.multiple else [[value] for value in values]
        result = _pooled_sets(codes, [_indexes(question.options, c) for c in chosen])
    elif isinstance(question, BooleanQuestion):
        result = _pooled_sets(codes, [[int(value)] for value in _booleans(values)])
    else:
        assert isinstance(question, SpansQuestion)
        lengths = [_length_of(response_lengths, label) for label in labels]
        result = _spans(question, codes, values, lengths)
    return QuestionAgreement(
        question.key, question.kind, level, result.alpha, len(labels), len(values)
    )


def pairable(ratings: Sequence[Rating]) -> tuple[list[Hashable], NDArray[np.int64], list[Any]]:
    """The units with two ratings or more (their labels, numbered 0..U-1), and those ratings:
    each one's unit number and its value."""
    numbers: dict[Hashable, int] = {}
    codes = np.fromiter(
        (numbers.setdefault(unit, len(numbers)) for unit, _ in ratings), np.int64, len(ratings)
    )
    count = np.bincount(codes, minlength=len(numbers))
    keep = count[codes] >= 2
    kept_units = np.flatnonzero(count >= 2)
    renumber = np.full(len(numbers), -1, dtype=np.int64)
    renumber[kept_units] = np.arange(kept_units.size)
    labels = list(numbers)
    return (
        [labels[unit] for unit in kept_units],
        renumber[codes[keep]],
        [value for (_, value), kept in zip(ratings, keep, strict=True) if kept],
    )


def _indexes(options: list[str], values: Sequence[Any]) -> list[int]:
    index = {option: place for place, option in enumerate(options)}
    wrong = [value for value in values if not isinstance(value, str) or value not in index]
    if wrong:
        raise ValueError(f"answers not among the options {options!r}: {wrong[:3]!r}")
    return [index[value] for value in values]


def _booleans(values: list[Any]) -> list[bool]:
    if not all(isinstance(value, bool) for value in values):
        raise ValueError("a boolean question's answers are true or false")
    return values


def _length_of(lengths: Mapping[Hashable, int] | None, unit: Hashable) -> int:
    if lengths is None or unit not in lengths:
        raise ValueError(f"spans need the response's length of every unit; none for {unit!r}")
    return int(lengths[unit])


def _ordinal(codes: NDArray[np.int64], ranks: list[int]) -> Alpha:
    options = np.asarray(ranks, dtype=np.int64)
    counts = np.bincount(options).astype(np.float64)
    midranks = np.cumsum(counts) - counts / 2
    return alpha_interval(codes, midranks[options])


def _pooled_sets(codes: NDArray[np.int64], chosen: list[list[int]]) -> Alpha:
    """Alpha over answers that are sets of options (numbered), pooled over the options."""
    width = 1 + max((max(c) for c in chosen if c), default=0)
    per_answer = np.fromiter((len(c) for c in chosen), np.int64, len(chosen))
    options = np.fromiter((o for c in chosen for o in c), np.int64, int(per_answer.sum()))
    pairs, ones = np.unique(np.repeat(codes, per_answer) * width + options, return_counts=True)
    size = np.bincount(codes)
    return _pooled(
        int(size.size),
        len(chosen),
        size[pairs // width],
        ones.astype(np.float64),
        pairs % width,
        np.ones(pairs.size),
    )


def _spans(
    question: SpansQuestion, codes: NDArray[np.int64], answers: list[Any], lengths: list[int]
) -> Alpha:
    """Alpha of span answers with each character as a unit, pooled over the labels."""
    labels = {label: place for place, label in enumerate(question.options)}
    width = len(labels)
    group: list[int] = []
    place: list[int] = []
    step: list[int] = []
    for unit, answer in zip(codes.tolist(), answers, strict=True):
        spans = [(int(s["start"]), int(s["end"]), str(s["label"])) for s in answer]
        for start, end, label in merged(spans):
            if not 0 <= start < end <= lengths[unit] or label not in labels:
                raise ValueError(f"the span {(start, end, label)!r} is not one this question takes")
            group += [unit * width + labels[label]] * 2
            place += [start, end]
            step += [1, -1]
    groups = np.asarray(group, dtype=np.int64)
    places = np.asarray(place, dtype=np.int64)
    order = np.lexsort((places, groups))
    groups, places = groups[order], places[order]
    # Between two boundaries of one (turn, label), as many annotators mark each character.
    covering = np.cumsum(np.asarray(step, dtype=np.float64)[order])
    same = groups[1:] == groups[:-1] if groups.size else np.zeros(0, dtype=bool)
    width_of = np.append(np.where(same, places[1:] - places[:-1], 0), 0).astype(np.float64)
    size = np.bincount(codes)
    values = int((size * np.asarray(lengths, dtype=np.int64)).sum()) if size.size else 0
    return _pooled(
        int(size.size), values, size[groups // width], covering, groups % width, width_of
    )


def _pooled(
    units: int,
    values: int,
    size: NDArray[np.int64],
    ones: NDArray[np.float64],
    option: NDArray[np.int64],
    weight: NDArray[np.float64],
) -> Alpha:
    """Pooled 0/1 alpha from rows (a unit of `size` values, `ones` of which have `option`),
    each standing for `weight` such units; `units` and `values` are what the alpha counts."""
    if values == 0:
        return alpha_interval_from_sums(units, 0.0, 0.0, 0.0, 0.0)
    m = size.astype(np.float64)
    observed = float((weight * (m * ones - ones * ones) / (m - 1)).sum())
    having = np.bincount(option, weights=weight * ones)
    spread = float((having - having * having / values).sum())
    # Each indicator centred (sum 0): the spread passed is the sum of their spreads.
    return alpha_interval_from_sums(units, float(values), 0.0, spread, observed)
