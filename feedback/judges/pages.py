"""Reviewers: each machine judge against the project's people (`/judges/`), a card a judge and
a row a question it scored, with a verdict in plain words and the confusion of polarities
(feedback.judges.calibration; docs/contract.md, "Quality: judges calibrated")."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.conf import settings

from core.accounts.roles import Action
from core.projects.rules import judges_weighed
from core.projects.selection import project_pk
from core.web import page, requires
from feedback.judges.calibration import POLARITIES, judges_calibration
from feedback.judges.marks import PERSON_PREFIX

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.judges.calibration import JudgeQuestion

TOKEN_PREFIX = "token:"  # how a judge is named: the credential that sent its feedback
JUDGE_NAME_LENGTH = 200  # a `?judge=` read: a credential's or person's name, prefixed
NAME_SHOWN = 48  # the characters of a judge's name its chip shows (the title holds it whole)
TOO_FEW_ITEMS = 10  # below this, no verdict
TOO_FEW = "too few items"
NO_KAPPA = "cannot tell"  # every item of one polarity: nothing beyond chance to measure
# Cohen's kappa of the polarities, read in words (after Landis and Koch's bands, coarser).
KAPPA_VERDICTS = (
    (0.8, "agrees well"),
    (0.6, "agrees"),
    (0.4, "agrees somewhat"),
    (float("-inf"), "does not agree"),
)


@dataclass(frozen=True)
class Cell:
    people: str  # the people's polarity, its column
    count: int
    agreed: bool  # on the diagonal: the judge's polarity is the people's


@dataclass(frozen=True)
class Question:
    figures: JudgeQuestion
    verdict: str
    confusion: list[tuple[str, list[Cell]]]  # a row a judge's polarity, a cell a people's


@dataclass(frozen=True)
class Judge:
    name: str  # in full, as the API names it
    shown: str  # without its prefix
    questions: list[Question]
    person: bool = False  # a person marked as a judge (feedback.judges.marks)

    @property
    def url(self) -> str:
        return "?" + urlencode({"judge": self.name})


@requires(Action.READ_AGREEMENT)
def judges(request: HttpRequest, principal: Principal) -> HttpResponse:
    everyone = _by_judge(judges_calibration(principal))
    asked = request.GET.get("judge", "")[:JUDGE_NAME_LENGTH]
    shown = [judge for judge in everyone if judge.name == asked] if asked else everyone
    context = {
        "judges": shown,
        "one": asked and shown,
        "unknown": asked if asked and not shown else "",
        "polarities": POLARITIES,
        "too_few": TOO_FEW_ITEMS,
        "verdicts": KAPPA_VERDICTS[:-1],
        "name_shown": NAME_SHOWN,
        "weighed": judges_weighed(project_pk(principal.project)),
        "min_items": settings.LEARNPORTAL_JUDGE_MIN_ITEMS,
    }
    return page(
        request, "feedback/judges.html", context, status=404 if asked and not shown else 200
    )


def _by_judge(figures: list[JudgeQuestion]) -> list[Judge]:
    """The rows grouped by judge, in the order the calibration gives (by judge, then question)."""
    return [
        Judge(
            name=name,
            shown=name.removeprefix(TOKEN_PREFIX).removeprefix(PERSON_PREFIX),
            questions=[_question(row) for row in rows],
            person=name.startswith(PERSON_PREFIX),
        )
        for name, rows in groupby(figures, key=lambda row: row.judge)
    ]


def _question(row: JudgeQuestion) -> Question:
    return Question(figures=row, verdict=verdict(row), confusion=_confusion(row.confusion))


def verdict(row: JudgeQuestion) -> str:
    """How well the judge agrees with people on this question, in words."""
    if row.items < TOO_FEW_ITEMS:
        return TOO_FEW
    kappa = row.kappa.value
    if kappa is None:
        return NO_KAPPA
    return next(words for floor, words in KAPPA_VERDICTS if kappa >= floor)


def _confusion(counts: dict[str, dict[str, int]]) -> list[tuple[str, list[Cell]]]:
    return [
        (
            theirs,
            [
                Cell(ours, counts.get(theirs, {}).get(ours, 0), agreed=theirs == ours)
                for ours in POLARITIES
            ],
        )
        for theirs in POLARITIES
    ]
