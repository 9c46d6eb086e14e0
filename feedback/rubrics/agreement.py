"""How much annotators agree on each question of a rubric: Krippendorff's alpha at the level
of measurement its kind implies, from sums that add up over the units (turns), so that a store
can keep them as ratings arrive and leave (feedback.question_sums) and read alpha in constant
time.

- `numeric`: interval, by feedback.agreement's closed form: per unit its count, sum, sum of
  squares and share of the observed disagreement.
- `categorical` (one option) and `boolean`: nominal.
- `categorical`, `ordered`: ordinal. Krippendorff's ordinal distance between options c and k is
  (sum of n_g for g from c to k - (n_c + n_k) / 2)**2, with n_g the pairable values of option g;
  that is (r_k - r_c)**2 with r_c = n_0 + ... + n_c - n_c / 2, each option's mid-rank: so the
  ordinal alpha is the interval alpha of the mid-ranks. The mid-ranks depend on every unit, so
  the sums are the coincidence matrix (o_ck = sum_u n_uc * n_uk / (m_u - 1), c = k with
  n_uc - 1) and its margins, and the distances are taken when alpha is read, in the options'
  order then.
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

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from feedback.agreement import Alpha, alpha_interval_from_sums
from feedback.rubrics.answers import merged
from feedback.rubrics.questions import (
    AnyQuestion,
    BooleanQuestion,
    CategoricalQuestion,
    NumericQuestion,
    Rubric,
    SpansQuestion,
)

Level = Literal["nominal", "ordinal", "interval"]
Rating = tuple[Hashable, Any]  # (unit, answer): one per annotator and unit, e.g. (turn id, value)
# What alpha is read from, as JSON keeps it: numbers, and (for the options) numbers by option,
# or by pair of options. Added key by key (`sums_added`).
Sums = dict[str, Any]
BOOLEAN_OPTIONS = ("false", "true")


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
    if level_of(question) is None:
        raise ValueError(f"{question.key} is a {question.kind} question: it has no level")
    by_unit: dict[Hashable, list[Any]] = {}
    for unit, answer in ratings:
        by_unit.setdefault(unit, []).append(answer)
    total: Sums = {}
    for unit, answers in by_unit.items():
        if len(answers) >= 2:
            length = (
                _length_of(response_lengths, unit) if isinstance(question, SpansQuestion) else 0
            )
            total = sums_added(total, unit_sums(question, answers, length=length))
    return agreement_of(question, total)


def agreement_of(question: AnyQuestion, sums: Sums) -> QuestionAgreement:
    """A question's agreement from the sums over its units (`unit_sums`, added up)."""
    level = level_of(question)
    if level is None:
        raise ValueError(f"{question.key} is a {question.kind} question: it has no level")
    alpha = _alpha(question, sums)
    return QuestionAgreement(
        question.key, question.kind, level, alpha.alpha, alpha.units, int(sums.get("ratings", 0))
    )


def shape_of(question: AnyQuestion) -> str:
    """What a question's sums are sums of: its kind, and for a categorical one whether it is
    ordered or multiple (none of which a question with answers may change)."""
    if isinstance(question, CategoricalQuestion):
        return (
            "categorical"
            + ("/ordered" if question.ordered else "")
            + ("/multiple" if question.multiple else "")
        )
    return question.kind


def unit_sums(question: AnyQuestion, answers: Sequence[Any], *, length: int = 0) -> Sums:
    """One unit's sums: the clean `answers` of its people (two or more) to `question`, the
    response `length` (characters) for spans. ValueError for an answer it does not take."""
    m = len(answers)
    if m < 2:
        raise ValueError("a unit pairs two answers or more")
    head: Sums = {"units": 1, "ratings": m}
    if isinstance(question, NumericQuestion):
        x = [_number(a) for a in answers]
        total, squares = math.fsum(x), math.fsum(v * v for v in x)
        within = max(squares - total * total / m, 0.0)
        observed = m * within / (m - 1)
        return head | {"values": m, "total": total, "squares": squares, "observed": observed}
    if isinstance(question, SpansQuestion):
        return head | _spans(question, answers, length)
    if isinstance(question, BooleanQuestion):
        chosen = [[BOOLEAN_OPTIONS[int(_boolean(a))]] for a in answers]
    elif isinstance(question, CategoricalQuestion):
        chosen = [_options(question, a if question.multiple else [a]) for a in answers]
        if question.ordered:
            return head | _coincidences([c[0] for c in chosen])
    else:
        raise ValueError(f"{question.key} is a {question.kind} question: it has no level")
    having = Counter(option for c in chosen for option in set(c))
    return head | {
        "values": m,
        "observed": math.fsum((m * k - k * k) / (m - 1) for k in having.values()),
        "having": dict(having),
    }


def sums_added(into: Sums, sums: Sums, *, sign: int = 1) -> Sums:
    """`into` plus `sign` times `sums`, key by key (nested for the options)."""
    out = dict(into)
    for key, value in sums.items():
        if isinstance(value, dict):
            out[key] = sums_added(out.get(key, {}), value, sign=sign)
        else:
            out[key] = out.get(key, 0) + sign * value
    return out


def _alpha(question: AnyQuestion, sums: Sums) -> Alpha:
    units, values = int(sums.get("units", 0)), float(sums.get("values", 0))
    if units < 2 or values <= 0:
        return Alpha(None, max(units, 0), max(int(values), 0))
    if isinstance(question, NumericQuestion):
        return alpha_interval_from_sums(
            units, values, sums["total"], sums["squares"], sums["observed"]
        )
    having: dict[str, float] = sums.get("having", {})
    if isinstance(question, CategoricalQuestion) and question.ordered:
        # Each option's mid-rank among the pairable values, in the options' order now.
        ranks: dict[str, float] = {}
        below = 0.0
        for option in question.options:
            n = having.get(option, 0.0)
            ranks[option] = below + n / 2
            below += n
        pairs: dict[str, dict[str, float]] = sums.get("pairs", {})
        observed = 0.5 * math.fsum(
            o * (ranks[c] - ranks[k]) ** 2
            for c, row in pairs.items()
            for k, o in row.items()
            if c in ranks and k in ranks
        )
        total = math.fsum(n * ranks[c] for c, n in having.items() if c in ranks)
        squares = math.fsum(n * ranks[c] ** 2 for c, n in having.items() if c in ranks)
        return alpha_interval_from_sums(units, values, total, squares, observed)
    # Each indicator centred (sum 0): the spread passed is the sum of their spreads.
    spread = math.fsum(n - n * n / values for n in having.values())
    return alpha_interval_from_sums(units, values, 0.0, spread, float(sums["observed"]))


def _coincidences(chosen: list[str]) -> Sums:
    m = len(chosen)
    counts = Counter(chosen)
    pairs = {
        c: {k: (n_c * (n_k - (c == k))) / (m - 1) for k, n_k in counts.items()}
        for c, n_c in counts.items()
    }
    return {"values": m, "having": dict(counts), "pairs": pairs}


def _spans(question: SpansQuestion, answers: Sequence[Any], length: int) -> Sums:
    """Each character a unit, the labels covering it its value: per label, the widths of the
    stretches between span boundaries, each with how many of the m people mark it."""
    m = len(answers)
    labels = set(question.options)
    steps: dict[str, Counter[int]] = {}
    for answer in answers:
        if not isinstance(answer, list):
            raise ValueError(f"a spans answer is a list of spans, not {answer!r}")
        spans = [(int(s["start"]), int(s["end"]), str(s["label"])) for s in answer]
        for start, end, label in merged(spans):
            if not 0 <= start < end <= length or label not in labels:
                raise ValueError(f"the span {(start, end, label)!r} is not one this question takes")
            steps.setdefault(label, Counter()).update({start: 1, end: -1})
    observed = 0.0
    having: dict[str, float] = {}
    for label, step in steps.items():
        covering, marked, at = 0, 0.0, 0
        for place in sorted(step):
            width = place - at
            observed += width * (m * covering - covering * covering) / (m - 1)
            marked += width * covering
            covering += step[place]
            at = place
        having[label] = marked
    return {"values": m * length, "observed": observed, "having": having}


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"a numeric question's answers are finite numbers, not {value!r}")
    return float(value)


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("a boolean question's answers are true or false")
    return value


def _options(question: CategoricalQuestion, chosen: Any) -> list[str]:
    if not isinstance(chosen, list):
        raise ValueError(f"a multiple choice is a list of options, not {chosen!r}")
    wrong = [
        value for value in chosen if not isinstance(value, str) or value not in question.options
    ]
    if wrong:
        raise ValueError(f"answers not among the options {question.options!r}: {wrong[:3]!r}")
    return chosen


def _length_of(lengths: Mapping[Hashable, int] | None, unit: Hashable) -> int:
    if lengths is None or unit not in lengths:
        raise ValueError(f"spans need the response's length of every unit; none for {unit!r}")
    return int(lengths[unit])
