"""What feedback answers over REST, each answer one pydantic model: built by the services and
the views' pagination, returned as `model_dump(mode="json")`, and the OpenAPI document's schema."""

from __future__ import annotations

from pydantic import ConfigDict, Field

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
