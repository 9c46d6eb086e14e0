"""What one queued turn is, as `POST /api/turns/` and an import from a file send it: the one
validation and the one batch limit of both, before feedback.services.turns.turns_store stores
them."""

from __future__ import annotations

from django.conf import settings
from pydantic import Field

from feedback.services.turns import TurnInput
from feedback.traces.steps import Steps
from learnportal_protocol import RatedTurn
from learnportal_protocol.errors import ErrorCode, LearnError, detail
from learnportal_protocol.models import Name, RequiredName, StrictModel


class TurnItem(StrictModel):
    correlation_id: RequiredName
    session_id: Name = ""
    component_name: Name = ""
    rated_turn: RatedTurn
    steps: Steps = Field(default_factory=list, description="the turn's run, a tree of steps")


class TurnsRequest(StrictModel):
    turns: list[TurnItem]


def turns_batch_checked(count: int) -> None:
    """Refuse a batch of more turns than one request may carry (`too_large`)."""
    if count > settings.LEARNPORTAL_MAX_BATCH:
        raise LearnError(
            ErrorCode.TOO_LARGE,
            f"{count} turns in one request; at most {settings.LEARNPORTAL_MAX_BATCH} are allowed.",
            [detail(["turns"], "too many items")],
        )


def turn_inputs(items: list[TurnItem]) -> list[TurnInput]:
    return [
        TurnInput(t.correlation_id, t.session_id, t.component_name, t.rated_turn, t.steps)
        for t in items
    ]
