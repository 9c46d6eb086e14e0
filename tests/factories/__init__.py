"""Factories (factory_boy) for what the tests make: one way to make each thing.

`.create()` stores a row the way the host stores it, through its service (a token's hash, a
turn's queue fields, a plan's reviews), as `by` where a principal sends it; `.build()` makes a
protocol item or a principal, stored nowhere. Call them explicitly (`UserFactory.create(...)`,
not `UserFactory(...)`): the type checker knows what those two return. The request bodies
sent over HTTP and WebSocket are tests/builders.py's.
"""

from __future__ import annotations

from tests.factories.accounts import (
    PASSWORD,
    ApiTokenFactory,
    IssuedToken,
    PrincipalFactory,
    UserFactory,
)
from tests.factories.feedback import (
    ActionFactory,
    ExperienceFactory,
    ExperienceItemFactory,
    FeedbackFactory,
    FeedbackItemFactory,
    RatedTurnFactory,
    TurnFactory,
)
from tests.factories.refinement import (
    PlanFactory,
    ProposalFactory,
    ProposalInputFactory,
    StepFactory,
    StoreValueFactory,
)
from tests.factories.webhooks import DeliveryFactory, EndpointFactory

__all__ = [
    "PASSWORD",
    "ActionFactory",
    "ApiTokenFactory",
    "DeliveryFactory",
    "EndpointFactory",
    "ExperienceFactory",
    "ExperienceItemFactory",
    "FeedbackFactory",
    "FeedbackItemFactory",
    "IssuedToken",
    "PlanFactory",
    "PrincipalFactory",
    "ProposalFactory",
    "ProposalInputFactory",
    "RatedTurnFactory",
    "StepFactory",
    "StoreValueFactory",
    "TurnFactory",
    "UserFactory",
]
