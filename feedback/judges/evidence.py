"""Machine feedback weighed by its judge, where the project weighs judges (`judges_weighed`):
in the stats, a feedback's confidence times its judge's weight on its dimension
(feedback.judges.weights); as routing evidence, one experience a feedback of a component, its
reward the score times that weight.

The experiences are the judge's, written with the feedback (`experience_id`
`feedback-<feedback_id>`, `episode_id` its turn's correlation id, `state` `{"feedback"}`,
`success` a positive score): evidence for the components the judge may speak for (an agent its
own, an environment every one, as its own experiences), no calls in the stats, no
`action_prob` (nothing routed them). A judge of weight 0 writes none: what it says moves
nothing. They count against the judge's experience quota; past it, with
`LEARNPORTAL_EXPERIENCE_OVERFLOW=reject`, the feedback is stored without them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import transaction

from core.projects.rules import judges_weighed
from feedback.attribution import attributed_components
from feedback.judges.calibration import MACHINE
from feedback.judges.marks import marked_people
from feedback.judges.weights import IN_FULL, is_machine, judge_weights
from feedback.services.experiences import experiences_write
from learnportal_protocol import FeedbackSource as FeedbackSourceEnum
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.models import Action, Experience

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.accounts.principals import Principal
    from learnportal_protocol import Feedback as FeedbackItem
    from learnportal_protocol import FeedbackSource

EXPERIENCE_ID_LENGTH = 200
PREFIX = "feedback-"


@dataclass(frozen=True)
class Weighing:
    """The weight each dimension of one judge's feedback counts with (empty: nothing weighed,
    every feedback in full), for the sources it weighs: a machine's, or a marked person's
    ratings."""

    by_dimension: dict[str, float] = field(default_factory=dict)
    sources: frozenset[str] = frozenset(MACHINE)

    def weight(self, source: FeedbackSource, dimension: str) -> float:
        if source.value not in self.sources:
            return IN_FULL
        return self.by_dimension.get(dimension, IN_FULL)

    @property
    def weighs(self) -> bool:
        return bool(self.by_dimension)


def weighing_of(
    principal: Principal,
    project: int,
    items: Sequence[tuple[FeedbackItem, FeedbackSource]],
) -> Weighing:
    """How the principal's machine feedback among these counts in the project, or their ratings
    where they are a person marked as a judge."""
    human = FeedbackSourceEnum.HUMAN.value
    machine = {item.dimension.value for item, source in items if is_machine(source.value)}
    rated = {item.dimension.value for item, source in items if source.value == human}
    if not (machine or (rated and principal.is_human)) or not judges_weighed(project):
        return Weighing()
    marked = bool(rated) and principal.is_human and principal.name in marked_people(project)
    dimensions = machine | (rated if marked else set())
    if not dimensions:
        return Weighing()
    sources = frozenset(MACHINE) | ({human} if marked else set())
    return Weighing(judge_weights(project, principal.key, dimensions), sources)


def experience_id_of(feedback_id: str) -> str:
    """The experience a feedback is: its id within the bound, hashed where it would not fit."""
    whole = PREFIX + feedback_id
    if len(whole) <= EXPERIENCE_ID_LENGTH:
        return whole
    return PREFIX + hashlib.sha256(feedback_id.encode()).hexdigest()


def feedback_experiences(
    weighing: Weighing,
    items: Sequence[tuple[FeedbackItem, FeedbackSource, str]],
) -> list[Experience]:
    """The experiences these (feedback, source, component) are where their judge is weighed:
    one a machine feedback of a component whose weight is above 0."""
    experiences = []
    for item, source, component in items:
        weight = weighing.weight(source, item.dimension.value)
        if not component or not is_machine(source.value) or weight <= 0:
            continue
        experiences.append(
            Experience(
                experience_id=experience_id_of(item.feedback_id),
                state={"feedback": item.feedback_id},
                action=Action(component_name=component, success=item.score > 0),
                reward=max(-1.0, min(1.0, item.score * weight)),
                done=True,
                episode_id=item.correlation_id or item.feedback_id,
                ts=item.ts,
            )
        )
    return experiences


def feedback_as_evidence(
    principal: Principal,
    weighing: Weighing,
    items: Sequence[tuple[FeedbackItem, FeedbackSource, str]],
) -> int:
    """Write the experiences these feedbacks are, inside their transaction: how many."""
    if not weighing.weighs:
        return 0
    experiences = feedback_experiences(weighing, items)
    if not experiences:
        return 0
    try:
        with transaction.atomic():  # a savepoint: past the quota, the feedback stays
            experiences_write(
                owner=principal.key,
                project=principal.project,
                experiences=experiences,
                policy=None,
                attributed=lambda names: attributed_components(principal, names),
                by=principal.name,
                calls=False,
            )
    except LearnError as refused:
        if refused.code is not ErrorCode.QUOTA_EXCEEDED:
            raise
        return 0
    return len(experiences)
