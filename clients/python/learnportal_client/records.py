"""learn/stats and learn/adapt answered with typed records instead of plain dicts.

The protocol's `LearnStatsResponse.components` and `LearnAdaptResponse.updated` are lists of
JSON objects (the spec's ComponentPerformanceRecord, and the host's adapt adds `weight`). The
client reads them as these models, leniently (a field a newer host adds is ignored), as the
subclasses below, so that what a call answers is still its protocol response.
"""

from __future__ import annotations

from pydantic import Field

from learnportal.protocol.messages import LearnAdaptResponse, LearnStatsResponse, Response
from learnportal_client.rest import Lenient


class ComponentRecord(Lenient):
    """One component's performance: calls, durations (ms) and its confidence-weighted score."""

    component_name: str
    calls_total: int = 0
    calls_success: int = 0
    calls_failed: int = 0
    avg_duration_ms: float = 0.0
    avg_score: float = 0.0
    last_called: float = 0.0
    p95_duration_ms: float = 0.0


class AdaptedComponent(ComponentRecord):
    """A component an adapt moved, with its routing weight after the move."""

    weight: float


class StatsResponse(LearnStatsResponse):
    components: list[ComponentRecord] = Field(default_factory=list)  # type: ignore[assignment]


class AdaptResponse(LearnAdaptResponse):
    updated: list[AdaptedComponent] = Field(default_factory=list)  # type: ignore[assignment]


# The response models the client reads instead of the protocol's, by response type.
TYPED_RESPONSES: dict[str, type[Response]] = {
    "learn/stats/resp": StatsResponse,
    "learn/adapt/resp": AdaptResponse,
}
