"""learn/stats and learn/adapt answered with typed records instead of plain dicts.

The protocol's `LearnStatsResponse.components` and `LearnAdaptResponse.updated` are lists of
JSON objects (the spec's ComponentPerformanceRecord, and the host's adapt adds `weight`). The
client reads them as these models, leniently (a field a newer host adds is ignored), as the
subclasses below, so that what a call answers is still its protocol response.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field

from learnportal_protocol.messages import LearnAdaptResponse, LearnStatsResponse, Response
from learnportal_protocol.models import ComponentPerformanceRecord


class ComponentRecord(ComponentPerformanceRecord):
    """One component's performance: calls, durations (ms) and its confidence-weighted score,
    the spec's record read leniently."""

    model_config = ConfigDict(extra="ignore", strict=False)  # as Lenient reads


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
