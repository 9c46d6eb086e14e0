"""What feedback answers over REST, each answer one pydantic model: built by the services and
the views' pagination, returned as `model_dump(mode="json")`, and the OpenAPI document's schema."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from learnportal.protocol import Feedback as FeedbackItem
from learnportal.protocol import RatedTurn
from learnportal.protocol.models import Answer


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


class StoredRatedTurn(RatedTurn):
    """The spec's RatedTurn as the host answers it (its schema: every field present)."""


class StoredFeedback(FeedbackItem):
    """The spec's Feedback as stored, with the host's `component_name` (docs/contract.md):
    what the explorer lists, built from a row by feedback.exports.as_items."""

    rated_turn: StoredRatedTurn | None = None


class FeedbackPage(Answer):
    """A page of the explorer, newest first (docs/contract.md, "Explorer")."""

    results: list[StoredFeedback]
    next: str | None = Field(description="the next page (same filters and limit), or null")


class Choices(Answer):
    """Values a filter may take that start with what was typed: a typeahead's suggestions."""

    values: list[str]
