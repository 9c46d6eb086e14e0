"""What each person's work in a project comes to over a period (`GET /api/annotators/`, the
`/annotators/` page): items rated, time per item, skips, accuracy on gold items, how reviewers
decided on their ratings, and how far the people agree without them.

The period is [since, until) of each record's own time: a feedback's `ts` (a rating's, and the
reviews of it), a timed rating's, a skip's, a gold result's. Everything is read in one query a
kind, the period's counted human feedback once for everyone (the agreement needs every
person's scores, whoever asks); a person's figures are then worked out in memory.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import Count

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.agreement import alpha_interval
from feedback.gold.models import GoldResult
from feedback.gold.reads import PersonAccuracy, gold_totals, person_accuracy
from feedback.insight.models import RatingTime
from feedback.models import FEEDBACK_ID_SEPARATOR, Skip
from feedback.reviews.models import Decision, RatingReview
from feedback.selectors.visibility import counted_feedback
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from core.accounts.principals import Principal

HUMAN = FeedbackSource.HUMAN.value
DAY = 86_400.0
DEFAULT_DAYS = 30  # the period when none is asked for: the last 30 days


@dataclass(frozen=True)
class Reviewed:
    """The decisions on a person's ratings of the period, a rating once."""

    accepted: int = 0
    rejected: int = 0
    amended: int = 0

    @property
    def decided(self) -> int:
        return self.accepted + self.rejected + self.amended

    @property
    def acceptance(self) -> float | None:
        return self.accepted / self.decided if self.decided else None


@dataclass(frozen=True)
class PersonInsight:
    username: str
    items: int  # ratings that count: a rubric's rating (a row an answer) once
    timed: int  # of the ratings that ended a lease, those whose time is known
    seconds_median: float | None
    seconds_p90: float | None
    skips: int
    gold: PersonAccuracy
    reviews: Reviewed
    alpha_without: float | None  # the people's alpha, this person's scores left out
    alpha_all: float | None  # everyone's: the same for every row

    @property
    def acceptance(self) -> float | None:
        return self.reviews.acceptance

    @property
    def alpha_delta(self) -> float | None:
        """How far alpha moves when this person is left out: above 0, the others agree better
        without them."""
        if self.alpha_without is None or self.alpha_all is None:
            return None
        return self.alpha_without - self.alpha_all


def annotator_insight(principal: Principal, since: float, until: float) -> list[PersonInsight]:
    """Everyone's figures of the period in the principal's project, by name, for those who
    read the agreement; for anyone else who rates, their own only; others `forbidden`."""
    if not principal.may(Action.READ_AGREEMENT):
        principal.require(Action.QUEUE)
    only = None if principal.may(Action.READ_AGREEMENT) else principal.name
    return insight(project_pk(principal.project), since, until, only=only)


def insight(
    project: int, since: float, until: float, *, only: str | None = None
) -> list[PersonInsight]:
    """The figures of the period of everyone who rated, skipped or was scored in it (or of the
    person `only`), by name."""
    rated = _rated(project, since, until)
    times = _times(project, since, until, only)
    skips = _skips(project, since, until, only)
    gold = _gold(project, since, until, only)
    reviews = _reviews(project, since, until, only)
    names = rated.items.keys() | times.keys() | skips.keys() | gold.keys() | reviews.keys()
    if only is not None:
        names &= {only}
    alpha_all = rated.alpha_without(None)
    results = []
    for name in sorted(names):
        seconds = times.get(name, [])
        median, p90 = _spread(seconds)
        results.append(
            PersonInsight(
                username=name,
                items=len(rated.items.get(name, ())),
                timed=len(seconds),
                seconds_median=median,
                seconds_p90=p90,
                skips=skips.get(name, 0),
                gold=person_accuracy(name, *gold.get(name, (0, 0, 0))),
                reviews=reviews.get(name, Reviewed()),
                alpha_without=rated.alpha_without(name) if name in rated.people else alpha_all,
                alpha_all=alpha_all,
            )
        )
    return results


@dataclass(frozen=True)
class Rated:
    """The period's counted human feedback: each person's rating items, and the whole-turn
    scores a (turn, dimension) unit, a person's latest on each, for the agreement."""

    items: dict[str, set[str]]
    people: dict[str, int]  # a person: their code in `coders`
    coders: NDArray[np.int64]
    units: NDArray[np.int64]
    values: NDArray[np.float64]

    def alpha_without(self, name: str | None) -> float | None:
        """The people's alpha (interval) over the units, leaving out this person (None:
        nobody)."""
        if name is None:
            return alpha_interval(self.units, self.values).alpha
        kept = self.coders != self.people[name]
        return alpha_interval(self.units[kept], self.values[kept]).alpha


def _rated(project: int, since: float, until: float) -> Rated:
    """One pass over the period's counted human feedback, in arrival order."""
    rows = (
        counted_feedback(project)
        .filter(source=HUMAN, ts__gte=since, ts__lt=until)
        .order_by("id")
        .values_list(
            "annotator_id", "feedback_id", "correlation_id", "step_id", "dimension", "score"
        )
    )
    items: dict[str, set[str]] = defaultdict(set)
    latest: dict[tuple[str, str, str], float] = {}  # (person, turn, dimension): their last score
    for name, feedback_id, key, step_id, dimension, score in rows.iterator(chunk_size=2000):
        if not name:  # an admin token's human feedback, of no one named: nobody's work
            continue
        # A rubric's rating is a row a scored answer, named `<rating_id>.<key>`: one item.
        items[name].add(feedback_id.partition(FEEDBACK_ID_SEPARATOR)[0])
        if not step_id and key:
            latest[name, key, dimension] = score
    people: dict[str, int] = {}
    units: dict[tuple[str, str], int] = {}
    coders, unit_codes, values = [], [], []
    for (name, key, dimension), score in latest.items():
        coders.append(people.setdefault(name, len(people)))
        unit_codes.append(units.setdefault((key, dimension), len(units)))
        values.append(score)
    return Rated(
        dict(items),
        people,
        np.array(coders, dtype=np.int64),
        np.array(unit_codes, dtype=np.int64),
        np.array(values, dtype=np.float64),
    )


def _spread(seconds: list[float]) -> tuple[float | None, float | None]:
    """The median and the 90th percentile of these times; None for none."""
    if not seconds:
        return None, None
    median, p90 = np.percentile(seconds, [50, 90])
    return float(median), float(p90)


def _times(project: int, since: float, until: float, only: str | None) -> dict[str, list[float]]:
    found = RatingTime.objects.filter(project_id=project, ts__gte=since, ts__lt=until)
    if only is not None:
        found = found.filter(username=only)
    seconds: dict[str, list[float]] = defaultdict(list)
    for name, took in found.values_list("username", "seconds").iterator(chunk_size=2000):
        seconds[name].append(took)
    return seconds


def _skips(project: int, since: float, until: float, only: str | None) -> dict[str, int]:
    found = Skip.objects.filter(turn__project_id=project, created__gte=since, created__lt=until)
    if only is not None:
        found = found.filter(username=only)
    counts = found.values("username").annotate(n=Count("id")).order_by()
    return {row["username"]: row["n"] for row in counts}


def _gold(
    project: int, since: float, until: float, only: str | None
) -> dict[str, tuple[int, int, int]]:
    found = GoldResult.objects.filter(project_id=project, ts__gte=since, ts__lt=until)
    if only is not None:
        found = found.filter(annotator=only)
    return gold_totals(found)


def _reviews(project: int, since: float, until: float, only: str | None) -> dict[str, Reviewed]:
    """The decisions on the period's ratings, by their author: a rating once, however many
    rows it is (one review_id for all of them)."""
    found = RatingReview.objects.filter(
        project_id=project,
        feedback__source=HUMAN,
        feedback__ts__gte=since,
        feedback__ts__lt=until,
    )
    if only is not None:
        found = found.filter(feedback__annotator_id=only)
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for name, decision, n in (
        found.values_list("feedback__annotator_id", "decision")
        .annotate(n=Count("review_id", distinct=True))
        .order_by()
    ):
        counts[name][decision] = n
    return {
        name: Reviewed(
            accepted=by.get(Decision.ACCEPTED.value, 0),
            rejected=by.get(Decision.REJECTED.value, 0),
            amended=by.get(Decision.AMENDED.value, 0),
        )
        for name, by in counts.items()
    }
