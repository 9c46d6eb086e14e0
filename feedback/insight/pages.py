"""Each person's work over the last 7, 30 or 90 days (`/annotators/`): a row a person, each
figure in numbers and words (feedback.insight.reads; docs/contract.md, "Quality: annotator
insight"). Reviewers, managers and site admins see everyone; an annotator their own, as "Your
work"."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import Field

from core.accounts.roles import Action
from core.inputs import QueryInt, QueryModel, page_query
from core.web import page, requires
from feedback.insight.reads import DAY, DEFAULT_DAYS, annotator_insight

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.insight.reads import PersonInsight

PERIODS = (7, 30, 90)  # days, the picker's choices
NO_SUCH_PERIOD = "the period is the last 7, 30 or 90 days"
# Leaving a person out raises the others' alpha by more than this: worth a look.
ALPHA_RISE = 0.05
SECONDS_SHOWN = 100  # below this, seconds; from it, minutes


class PeriodQuery(QueryModel):
    days: QueryInt = Field(default=DEFAULT_DAYS)


@dataclass(frozen=True)
class PeriodLink:
    days: int
    current: bool


@dataclass(frozen=True)
class Row:
    figures: PersonInsight
    median: str
    p90: str
    gold: str  # the accuracy, a percentage
    gold_interval: str  # its 95% interval
    acceptance: str
    alpha_without: str
    delta: str  # against everyone's alpha, signed
    stands_out: bool  # leaving them out raises alpha by more than ALPHA_RISE


@requires(Action.QUEUE)  # everyone who rates: an annotator reads their own row
def annotators(request: HttpRequest, principal: Principal) -> HttpResponse:
    query, problems = page_query(PeriodQuery, request.GET)
    days = query.days
    if days not in PERIODS:
        problems, days = {"days": NO_SUCH_PERIOD}, DEFAULT_DAYS
    until = time.time()
    people = annotator_insight(principal, until - days * DAY, until)
    everyone = principal.may(Action.READ_AGREEMENT)
    context = {
        "everyone": everyone,
        "title": "Each person's work" if everyone else "Your work",
        "days": days,
        "periods": [PeriodLink(choice, choice == days) for choice in PERIODS],
        "rows": [_row(person) for person in people],
        "alpha_all": _alpha(people[0].alpha_all) if people else "",
        "alpha_rise": ALPHA_RISE,
        "problems": list(problems.values()),
    }
    return page(request, "feedback/annotators.html", context, status=400 if problems else 200)


def _row(person: PersonInsight) -> Row:
    delta = person.alpha_delta
    return Row(
        figures=person,
        median=seconds_shown(person.seconds_median),
        p90=seconds_shown(person.seconds_p90),
        gold=_share(person.gold.accuracy),
        gold_interval=_interval(person),
        acceptance=_share(person.acceptance),
        alpha_without=_alpha(person.alpha_without),
        delta="" if delta is None else f"{delta:+.2f}",
        stands_out=delta is not None and delta > ALPHA_RISE,
    )


def seconds_shown(seconds: float | None) -> str:
    """A time per item in words: "42 s", "3.5 min"; "—" for none."""
    if seconds is None:
        return "—"
    if seconds < SECONDS_SHOWN:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min"


def _share(share: float | None) -> str:
    return "—" if share is None else f"{share:.0%}"


def _alpha(alpha: float | None) -> str:
    return "—" if alpha is None else f"{alpha:.2f}"


def _interval(person: PersonInsight) -> str:
    if person.gold.interval is None:
        return ""
    low, high = person.gold.interval
    return f"({low:.0%} to {high:.0%})"
