"""What agents and people send, as the services take it (protocol items), and stored through
those services (rows): turns, feedback, experiences.

A row is made the one way the host makes it, so that its digests, counters and queue fields
are what they would be: `.create()` calls the service as `by`, a principal.
"""

from __future__ import annotations

from typing import Any

import factory
from factory.django import DjangoModelFactory

from core.accounts.roles import Role
from feedback.models import Experience, Feedback, Turn
from feedback.services.experiences import experience_store
from feedback.services.feedbacks import feedback_record
from feedback.services.turns import TurnInput, turns_submit
from learnportal_protocol import Experience as ExperienceItem
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackPolarity, RatedTurn
from learnportal_protocol.models import Action
from refinement.store import behaviour_policy
from tests.factories.accounts import PrincipalFactory


def _polarity(score: float) -> FeedbackPolarity:
    return FeedbackPolarity.POSITIVE if score >= 0 else FeedbackPolarity.NEGATIVE


class RatedTurnFactory(factory.Factory[RatedTurn]):
    class Meta:
        model = RatedTurn

    prompt = "Q?"
    response = "A."
    model = "m"


class TurnFactory(DjangoModelFactory[Turn]):
    """A turn queued for annotators by `by` (the agent agent-1 unless told)."""

    class Meta:
        model = Turn

    by = factory.SubFactory(PrincipalFactory, role=Role.AGENT, name="agent-1")
    correlation_id = factory.Sequence(lambda n: f"turn-{n}")
    session_id = "s-1"
    component_name = "search"
    rated_turn = factory.SubFactory(RatedTurnFactory)

    @classmethod
    def _create(cls, model_class: type[Turn], *args: Any, **kwargs: Any) -> Turn:
        by = kwargs.pop("by")
        turns_submit(principal=by, turns=[TurnInput(**kwargs)])
        return Turn.objects.get(correlation_id=kwargs["correlation_id"])


def _carried(turn: Turn) -> RatedTurn:
    return RatedTurn(prompt=turn.prompt, response=turn.response, model=turn.model)


class FeedbackItemFactory(factory.Factory[FeedbackItem]):
    """One feedback item, positive or negative as its score; `turn=` rates a stored turn, and
    `carries_turn=True` sends that turn along, as the rating pages do.

    Only what is declared here is sent: `source` left out means the sender's own.
    """

    class Meta:
        model = FeedbackItem

    class Params:
        turn: Turn | None = None
        carries_turn = factory.Trait(rated_turn=factory.LazyAttribute(lambda o: _carried(o.turn)))

    feedback_id = factory.Sequence(lambda n: f"feedback-{n}")
    correlation_id = factory.LazyAttribute(lambda o: o.turn.correlation_id if o.turn else "")
    component_name = factory.LazyAttribute(lambda o: o.turn.component_name if o.turn else "")
    score = 0.5
    polarity = factory.LazyAttribute(lambda o: _polarity(o.score))


class FeedbackFactory(DjangoModelFactory[Feedback]):
    """A feedback row recorded from `by` (the annotator ann unless told); the other fields
    are FeedbackItemFactory's."""

    class Meta:
        model = Feedback

    by = factory.SubFactory(PrincipalFactory, role=Role.ANNOTATOR, name="ann")

    @classmethod
    def _create(cls, model_class: type[Feedback], *args: Any, **kwargs: Any) -> Feedback:
        by = kwargs.pop("by")
        item = FeedbackItemFactory.build(**kwargs)
        feedback_record(principal=by, feedbacks=[item])
        return Feedback.objects.get(feedback_id=item.feedback_id)


class ActionFactory(factory.Factory[Action]):
    class Meta:
        model = Action

    component_name = "search"


class ExperienceItemFactory(factory.Factory[ExperienceItem]):
    """One experience tuple, a call of `action`'s component (search unless told)."""

    class Meta:
        model = ExperienceItem

    experience_id = factory.Sequence(lambda n: f"experience-{n}")
    action = factory.SubFactory(ActionFactory)
    reward = 0.5


class ExperienceFactory(DjangoModelFactory[Experience]):
    """An experience row stored from `by` (the environment gym-1 unless told), under the
    routing in force; the other fields are ExperienceItemFactory's."""

    class Meta:
        model = Experience

    by = factory.SubFactory(PrincipalFactory, role=Role.ENVIRONMENT, name="gym-1")

    @classmethod
    def _create(cls, model_class: type[Experience], *args: Any, **kwargs: Any) -> Experience:
        by = kwargs.pop("by")
        item = ExperienceItemFactory.build(**kwargs)
        experience_store(principal=by, experiences=[item], policy=behaviour_policy)
        return Experience.objects.get(experience_id=item.experience_id)
