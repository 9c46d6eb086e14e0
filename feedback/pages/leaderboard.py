"""Reviewers: the leaderboard of judged comparisons, by component or by model, with each
strength's interval drawn on one scale, the position bias, and how much the judges agree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.accounts.roles import Action
from core.projects.selection import project_pk
from core.web import page, requires
from feedback.comparisons.agreement import comparison_agreement
from feedback.comparisons.leaderboard import RankedBy, leaderboard_read

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.comparisons.answers import LeaderboardEntry

SCALE = 100.0  # the bars' viewBox width


@dataclass(frozen=True)
class Row:
    entry: LeaderboardEntry
    low: float  # the interval, on the bars' scale
    width: float
    mark: float  # the strength, on the bars' scale


@requires(Action.READ_LEADERBOARD)
def leaderboard(request: HttpRequest, principal: Principal) -> HttpResponse:
    wanted = request.GET.get("by", RankedBy.COMPONENT.value)
    by = RankedBy(wanted) if wanted in RankedBy.__members__.values() else RankedBy.COMPONENT
    project = project_pk(principal.project)
    board = leaderboard_read(project, by)
    context = {
        "board": board,
        "rows": _rows(board.entries),
        "by": by.value,
        "choices": [choice.value for choice in RankedBy],
        "bias_noted": board.position_bias_interval is not None
        and not board.position_bias_interval[0] <= 0.5 <= board.position_bias_interval[1],
        "agreement": comparison_agreement(project),
    }
    return page(request, "feedback/leaderboard.html", context)


def _rows(entries: list[LeaderboardEntry]) -> list[Row]:
    """Each entry with its interval and strength placed on one scale for all."""
    if not entries:
        return []
    low = min(entry.interval[0] for entry in entries)
    high = max(entry.interval[1] for entry in entries)
    span = (high - low) or 1.0

    def at(value: float) -> float:
        return round((value - low) / span * SCALE, 2)

    return [
        Row(
            entry,
            low=at(entry.interval[0]),
            width=max(at(entry.interval[1]) - at(entry.interval[0]), 0.5),
            mark=at(entry.strength),
        )
        for entry in entries
    ]
