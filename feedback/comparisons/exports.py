"""Training data from judged comparisons (docs/contract.md, "Comparisons"): the pairs a judgment
orders, in `trl` and `openai-dpo` beside the pairs of corrections (feedback.exports), and the
format `comparisons`, a line a judgment with the order it was shown in.

A judgment of two gives one pair (a tie none), its `margin` the preference's strength (1 or
2); a ranking of k candidates gives each of its k(k-1)/2 pairs, margin 1. The explorer's
filters apply as they can to a judgment: `annotator` (its judge), `since` and `until` (its
`ts`), `component` (a pair with a candidate of it; a judgment with one); a filter a judgment
cannot match (`source` other than human, `polarity`, `dimension`, `has_correction=true`,
`correlation_id`) leaves every judgment out.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

import orjson
from django.db.models import Q

from feedback.comparisons.models import Candidate, Judgment, answers_of, judgment_readable
from feedback.exports import BATCH, openai_dpo_line
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterator

    from django.db.models import QuerySet

    from feedback.filters import FeedbackFilters

Record = dict[str, Any]
COMPARISONS = "comparisons"
PAIR_FORMATS = ("trl", "openai-dpo")
JUDGMENT_FIELDS = (
    *("id", "judgment_id", "comparison__comparison_id", "comparison__prompt"),
    *("annotator", "shown", "ranks", "preference", "rationale", "ts", "answers", "rubric_version"),
)


def judgments_matching(project: int, filters: FeedbackFilters) -> QuerySet[Judgment] | None:
    """The project's judgments the filters can match; None when they match none."""
    human = filters.source is None or filters.source == FeedbackSource.HUMAN
    if (
        not human
        or filters.polarity is not None
        or filters.dimension is not None
        or filters.has_correction
        or filters.correlation_id
    ):
        return None
    judgments = Judgment.objects.filter(project_id=project)
    if filters.annotator:
        judgments = judgments.filter(annotator=filters.annotator)
    if filters.since is not None:
        judgments = judgments.filter(ts__gte=filters.since)
    if filters.until is not None:
        judgments = judgments.filter(ts__lt=filters.until)
    if filters.component:
        judgments = judgments.filter(
            Q(comparison__candidates__component_name=filters.component)
        ).distinct()
    return judgments


def judgment_records(
    kind: str, judgments: QuerySet[Judgment] | None, *, component: str = ""
) -> Iterator[list[Record]]:
    """The lines of format `kind` (a pair format or `comparisons`) of these judgments, one list
    a keyset batch of them (a batch may give no line)."""
    if judgments is None:
        return
    rows = judgments.order_by("id").values_list(*JUDGMENT_FIELDS)
    last_id = 0
    while page := list(rows.filter(id__gt=last_id)[:BATCH]):
        last_id = page[-1][0]
        candidates = _candidates_of(page)
        lines: list[Record] = []
        for row in page:
            line = _judgment_line(row, candidates)
            if line is None:
                continue
            if kind == COMPARISONS:
                lines.append(line)
                continue
            pairs = [p for p in judged_pairs_of(line) if _names(p, component)]
            lines.extend(p["line"] if kind == "trl" else openai_dpo_line(p["line"]) for p in pairs)
        yield lines


def judgment_chunks(
    kind: str, judgments: QuerySet[Judgment] | None, *, component: str = ""
) -> Iterator[bytes]:
    """JSON lines of format `kind`, one bytes chunk a batch."""
    for records in judgment_records(kind, judgments, component=component):
        lines = [line for record in records if (line := _dumped(record))]
        if lines:
            yield b"".join(lines)


def _dumped(record: Record) -> bytes:
    """A line of JSON, or nothing for one a stored value cannot be written in (a number past
    64 bits in an answer, say): left out, as a row of another time, rather than break the file."""
    try:
        return orjson.dumps(record) + b"\n"
    except orjson.JSONEncodeError:
        return b""


def judged_pairs_of(line: Record) -> list[Record]:
    """A judgment's decisive pairs: each its `trl` line, and the components of its two sides."""
    shown, ranks = line["shown"], line["ranks"]
    pairs = []
    for i, j in combinations(range(len(shown)), 2):
        if ranks[i] == ranks[j]:
            continue
        better, worse = (shown[i], shown[j]) if ranks[i] < ranks[j] else (shown[j], shown[i])
        margin = abs(line["preference"]) if line["preference"] is not None else 1
        pairs.append(
            {
                "line": {
                    "prompt": line["prompt"],
                    "chosen": better["response"],
                    "rejected": worse["response"],
                    "margin": margin,
                },
                "components": (better["component_name"], worse["component_name"]),
            }
        )
    return pairs


def _names(pair: Record, component: str) -> bool:
    return not component or component in pair["components"]


def _candidates_of(page: list[tuple[Any, ...]]) -> dict[str, Record]:
    ids = {c for row in page if isinstance(row[5], list) for c in row[5] if isinstance(c, str)}
    rows = Candidate.objects.filter(candidate_id__in=ids).values(
        "candidate_id", "response", "component_name", "model"
    )
    return {row["candidate_id"]: dict(row) for row in rows}


def _judgment_line(row: tuple[Any, ...], candidates: dict[str, Record]) -> Record | None:
    """A judgment's line, or None for one whose stored fields cannot make one."""
    _, judgment_id, comparison_id, prompt, annotator, shown, ranks, preference, why, ts = row[:10]
    answers, rubric_version = row[10:]
    if not judgment_readable(shown, ranks, preference) or not all(c in candidates for c in shown):
        return None
    return {
        "judgment_id": judgment_id,
        "comparison_id": comparison_id,
        "prompt": prompt,
        "annotator": annotator,
        "shown": [
            {**candidates[candidate], "answers": answers_of(answers, candidate)}
            for candidate in shown
        ],
        "ranks": ranks,
        "preference": preference,
        "rationale": why,
        "rubric_version": rubric_version,
        "ts": ts,
    }
