"""Each machine judge of a project against its people (`GET /api/judges/`): for every agent
or environment (by the credential that sent it) and every dimension it scored, on the whole
turns people rated on that dimension too, the judge's latest counted score beside the people's
mean: Krippendorff's alpha (interval) of the two, Cohen's kappa of their polarities, the mean
absolute error and Spearman's rho, each with its interval, and the confusion of polarities.

A first reading, from the stored feedback at each request; what the items number is bounded by
the turns people rated.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import Avg, Value
from django.db.models.functions import Concat

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.agreement import alpha_interval
from feedback.judges.marks import PERSON_PREFIX, marked_people
from feedback.judges.metrics import Estimate, cohen_kappa, mean_absolute_error, spearman
from feedback.selectors.visibility import counted_feedback
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from core.accounts.principals import Principal

MACHINE = (FeedbackSource.SELF.value, FeedbackSource.ENV.value)
POLARITIES = ("negative", "neutral", "positive")


def polarity_of(score: float) -> str:
    return POLARITIES[(score > 0) - (score < 0) + 1]


@dataclass(frozen=True)
class Paired:
    judge: list[float] = field(default_factory=list)
    people: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class JudgeQuestion:
    judge: str
    question: str
    items: int
    alpha: float | None
    kappa: Estimate
    mae: Estimate
    spearman: Estimate
    confusion: dict[str, dict[str, int]]  # the judge's polarity: the people's: items
    # What its feedback counts with where the project weighs judges (feedback.judges.weights):
    # alpha clipped to [0, 1]; None while too few items say (it counts in full).
    weight: float | None = None


def judges_calibration(principal: Principal) -> list[JudgeQuestion]:
    """Every judge's figures on every dimension it shares with people, by judge then
    dimension."""
    principal.require(Action.READ_AGREEMENT)
    return calibrate(project_pk(principal.project))


def calibrate(project: int, judge: str | None = None) -> list[JudgeQuestion]:
    """The project's judges' figures (or one judge's, by its name: the credential that sent
    its feedback, `user:<username>` for a person marked as a judge), by judge then dimension.
    A marked person is no person here: their scores are set beside the other people's."""
    every_marked = marked_people(project)
    person = (
        judge.removeprefix(PERSON_PREFIX) if judge and judge.startswith(PERSON_PREFIX) else None
    )
    counted = counted_feedback(project).filter(step_id="").exclude(correlation_id="")
    machine = counted.filter(source__in=MACHINE)
    as_judges = counted.filter(
        source=FeedbackSource.HUMAN.value, annotator_id__in=sorted(every_marked)
    )
    if person is not None:
        machine, as_judges = machine.none(), as_judges.filter(annotator_id=person)
    elif judge is not None:
        machine, as_judges = machine.filter(submitted_by=judge), as_judges.none()
    rated = counted.filter(source=FeedbackSource.HUMAN.value).exclude(
        annotator_id__in=sorted(every_marked)
    )
    if judge is not None:
        judged_keys = (machine if person is None else as_judges).values("correlation_id")
        rated = rated.filter(correlation_id__in=judged_keys)
    people = {
        (row["correlation_id"], row["dimension"]): float(row["mean"])
        for row in rated.values("correlation_id", "dimension").annotate(mean=Avg("score"))
    }
    latest: dict[tuple[str, str, str], float] = {}  # (judge, key, dimension): its last score
    rows = [
        machine.values_list("id", "submitted_by", "correlation_id", "dimension", "score"),
        as_judges.annotate(judge=Concat(Value(PERSON_PREFIX), "annotator_id")).values_list(
            "id", "judge", "correlation_id", "dimension", "score"
        ),
    ]
    for query in rows:
        for _, name, key, dimension, score in sorted(
            query.filter(correlation_id__in=rated.values("correlation_id")).iterator(
                chunk_size=2000
            )
        ):
            if (key, dimension) in people:
                latest[name, key, dimension] = score
    paired: dict[tuple[str, str], Paired] = defaultdict(Paired)
    for (name, key, dimension), score in latest.items():
        pair = paired[name, dimension]
        pair.judge.append(score)
        pair.people.append(people[key, dimension])
    return [
        _figures(name, dimension, paired[name, dimension]) for name, dimension in sorted(paired)
    ]


def _figures(judge: str, question: str, pair: Paired) -> JudgeQuestion:
    n = len(pair.judge)
    units = [i for i in range(n) for _ in (0, 1)]
    values = [v for a, b in zip(pair.judge, pair.people, strict=True) for v in (a, b)]
    theirs = [polarity_of(score) for score in pair.judge]
    ours = [polarity_of(score) for score in pair.people]
    confusion = {a: dict.fromkeys(POLARITIES, 0) for a in POLARITIES}
    for a, b in zip(theirs, ours, strict=True):
        confusion[a][b] += 1
    alpha = alpha_interval(units, values).alpha
    return JudgeQuestion(
        judge=judge,
        question=question,
        items=n,
        alpha=alpha,
        kappa=cohen_kappa(theirs, ours),
        mae=mean_absolute_error(pair.judge, pair.people),
        spearman=spearman(pair.judge, pair.people),
        confusion=confusion,
        weight=measured_weight(n, alpha),
    )


def measured_weight(items: int, alpha: float | None) -> float | None:
    """The weight a judge's figures on `items` earn: None while too few items say."""
    if items < settings.LEARNPORTAL_JUDGE_MIN_ITEMS or alpha is None:
        return None
    return min(1.0, max(0.0, alpha))
