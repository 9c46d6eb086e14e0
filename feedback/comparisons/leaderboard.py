"""A project's leaderboard (`GET /api/leaderboard/`): its judged comparisons as pairs of
candidates, by component or by model, and the Bradley-Terry strengths of those
(feedback.comparisons.strengths).

A judgment of k candidates is its k(k-1)/2 pairs, each a win of the better ranked, or a tie
(half a win to each side); a pair of two candidates of one name says nothing of that name
against another, and is left out. The position bias is measured on the decisive pairs: how
often the candidate shown first won.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from feedback.comparisons.answers import Leaderboard, LeaderboardEntry
from feedback.comparisons.models import Candidate, Judgment, judgment_readable
from feedback.comparisons.strengths import bradley_terry
from feedback.intervals import wilson

if TYPE_CHECKING:
    from collections.abc import Iterable


class RankedBy(StrEnum):
    COMPONENT = "component"
    MODEL = "model"


NAME_FIELD = {RankedBy.COMPONENT: "component_name", RankedBy.MODEL: "model"}


@dataclass(frozen=True)
class JudgedPair:
    """Two candidates' names in the order shown, and how the first fared: 1 won, 0 lost, 0.5
    a tie."""

    first: str
    second: str
    first_score: float
    judgment: int


@dataclass
class _Tally:
    wins: int = 0
    losses: int = 0
    ties: int = 0
    judgments: set[int] = field(default_factory=set)


def judged_pairs(
    judgments: Iterable[tuple[int, list[str], list[int]]], names: dict[str, str]
) -> list[JudgedPair]:
    """The pairs of named candidates in each judgment (id, shown, ranks), in the shown order."""
    pairs = []
    for judgment, shown, ranks in judgments:
        if not judgment_readable(shown, ranks):
            continue
        for i, j in combinations(range(len(shown)), 2):
            first, second = names.get(shown[i], ""), names.get(shown[j], "")
            if not first or not second or first == second:
                continue
            score = 0.5 if ranks[i] == ranks[j] else float(ranks[i] < ranks[j])
            pairs.append(JudgedPair(first, second, score, judgment))
    return pairs


def leaderboard_of(pairs: list[JudgedPair], by: RankedBy) -> Leaderboard:
    """The entries of these pairs, strongest first, and the position bias they show."""
    entries = sorted({name for pair in pairs for name in (pair.first, pair.second)})
    index = {name: i for i, name in enumerate(entries)}
    wins = np.zeros((len(entries), len(entries)))
    tally: dict[str, _Tally] = defaultdict(_Tally)
    for pair in pairs:
        a, b = index[pair.first], index[pair.second]
        wins[a, b] += pair.first_score
        wins[b, a] += 1 - pair.first_score
        _count(tally[pair.first], pair.first_score, pair.judgment)
        _count(tally[pair.second], 1 - pair.first_score, pair.judgment)
    fitted = bradley_terry(wins)
    rows = [
        LeaderboardEntry(
            name=name,
            strength=float(fitted.strength[i]),
            interval=(float(fitted.low[i]), float(fitted.high[i])),
            wins=tally[name].wins,
            losses=tally[name].losses,
            ties=tally[name].ties,
            judgments=len(tally[name].judgments),
        )
        for i, name in enumerate(entries)
    ]
    rows.sort(key=lambda entry: (-entry.strength, entry.name))
    decisive = [pair.first_score for pair in pairs if pair.first_score != 0.5]
    bias = float(np.mean(decisive)) if decisive else None
    interval = wilson(int(sum(decisive)), len(decisive)) if decisive else None
    return Leaderboard(
        by=by.value,
        entries=rows,
        position_bias=bias,
        position_bias_interval=interval,
        pairs=len(pairs),
    )


def _count(tally: _Tally, score: float, judgment: int) -> None:
    if score == 1:
        tally.wins += 1
    elif score == 0:
        tally.losses += 1
    else:
        tally.ties += 1
    tally.judgments.add(judgment)


def leaderboard_read(project: int, by: RankedBy) -> Leaderboard:
    """The project's leaderboard from every judgment stored."""
    candidates = Candidate.objects.filter(comparison__project_id=project)
    names = dict(candidates.values_list("candidate_id", NAME_FIELD[by]))
    judgments = Judgment.objects.filter(project_id=project).order_by("id")
    rows = judgments.values_list("id", "shown", "ranks")
    return leaderboard_of(judged_pairs(rows.iterator(chunk_size=2000), names), by)
