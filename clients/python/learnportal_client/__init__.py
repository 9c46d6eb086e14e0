"""The Python client of LearnPortal's learn/* API.

    from learnportal_client import LearnClient

    with LearnClient("http://127.0.0.1:8000", token) as client:
        client.experience([{"action": {"component_name": "search", "success": True}, "reward": 1}])
        print(client.routing().weights)

The request and response models are the server's own, `learnportal_protocol` (pure pydantic),
re-exported here.
"""

from __future__ import annotations

from learnportal_client.buffer import AsyncLearnBuffer, LearnBuffer, Unsent
from learnportal_client.client import AsyncLearnClient, LearnClient
from learnportal_client.errors import LearnError
from learnportal_client.records import (
    AdaptedComponent,
    AdaptResponse,
    ComponentRecord,
    StatsResponse,
)
from learnportal_client.rest import (
    FeedbackPage,
    ListedFeedback,
    QueuedTurn,
    Routing,
    RunOutcome,
    Turn,
    TurnPage,
    TurnsCreated,
)
from learnportal_client.retry import NO_RETRY, Retry
from learnportal_client.routing import Choice, choose, probabilities
from learnportal_client.session import AsyncLearnSession, LearnSession
from learnportal_protocol.messages import (
    Capability,
    LearnAdaptResponse,
    LearnExperienceResponse,
    LearnFeedbackResponse,
    LearnRefinementApplyResponse,
    LearnRefinementHistoryResponse,
    LearnRefinementPlanResponse,
    LearnRefinementReviewResponse,
    LearnRefinementRollbackResponse,
    LearnStatsResponse,
)
from learnportal_protocol.models import (
    Action,
    Experience,
    Feedback,
    FeedbackDimension,
    FeedbackPolarity,
    FeedbackSource,
    RatedTurn,
)

__all__ = [
    "NO_RETRY",
    "Action",
    "AdaptResponse",
    "AdaptedComponent",
    "AsyncLearnBuffer",
    "AsyncLearnClient",
    "AsyncLearnSession",
    "Capability",
    "Choice",
    "ComponentRecord",
    "Experience",
    "Feedback",
    "FeedbackDimension",
    "FeedbackPage",
    "FeedbackPolarity",
    "FeedbackSource",
    "LearnAdaptResponse",
    "LearnBuffer",
    "LearnClient",
    "LearnError",
    "LearnExperienceResponse",
    "LearnFeedbackResponse",
    "LearnRefinementApplyResponse",
    "LearnRefinementHistoryResponse",
    "LearnRefinementPlanResponse",
    "LearnRefinementReviewResponse",
    "LearnRefinementRollbackResponse",
    "LearnSession",
    "LearnStatsResponse",
    "ListedFeedback",
    "QueuedTurn",
    "RatedTurn",
    "Retry",
    "Routing",
    "RunOutcome",
    "StatsResponse",
    "Turn",
    "TurnPage",
    "TurnsCreated",
    "Unsent",
    "choose",
    "probabilities",
]
