"""What feedback answers over REST, each answer one pydantic model: built by the services and
the views' pagination, returned as `model_dump(mode="json")`, and the OpenAPI document's schema."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from learnportal.protocol.models import Answer, FeedbackDimension


class TurnsCreated(Answer):
    received: int = Field(description="turns in the request")
    created: int = Field(description="turns new to the queue (a known correlation_id is skipped)")


class Turn(Answer):
    """A queued agent turn, as the queue lists it."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    correlation_id: str
    session_id: str
    component_name: str
    prompt: str
    response: str
    model: str
    version: str | None
    created: float


class TurnPage(Answer):
    next: str | None = Field(description="the next page, or null")
    previous: str | None = Field(description="the page before, or null")
    results: list[Turn]


class DimensionAgreement(Answer):
    dimension: FeedbackDimension
    alpha: float | None = Field(
        description="Krippendorff's alpha, interval metric, over the human scores of the turns "
        "below; null with fewer than two such turns (or no variation at all among their scores)"
    )
    turns: int = Field(description="turns with human scores from at least two people")
    ratings: int = Field(description="the human scores on those turns, one per person")


class Agreement(Answer):
    """How much annotators agree, per dimension (every dimension, in the protocol's order)."""

    dimensions: list[DimensionAgreement]
