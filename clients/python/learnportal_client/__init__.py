"""The Python client of LearnPortal's learn/* API.

    from learnportal_client import LearnClient

    with LearnClient() as client:  # LEARNPORTAL_URL and LEARNPORTAL_TOKEN, or pass them
        client.experience([{"action": {"component_name": "search", "success": True}, "reward": 1}])
        print(client.routing().weights)

The request and response models are the server's own, `learnportal_protocol` (pure pydantic),
re-exported here. README.md (beside this package) is the guide.
"""

from __future__ import annotations

from learnportal_client.buffer import AsyncLearnBuffer, LearnBuffer, Unsent
from learnportal_client.client import AsyncLearnClient, LearnClient
from learnportal_client.environment import TOKEN_VARIABLE, URL_VARIABLE
from learnportal_client.errors import (
    ConflictError,
    ForbiddenError,
    InvalidError,
    InvalidReplyError,
    LearnError,
    NotFoundError,
    QuotaExceededError,
    RateLimitedError,
    StrategyNotAllowedError,
    TooLargeError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    UnknownTypeError,
    UnreachableError,
)
from learnportal_client.records import (
    AdaptedComponent,
    AdaptResponse,
    ComponentRecord,
    StatsResponse,
)
from learnportal_client.rest import (
    ComparisonsCreated,
    FeedbackPage,
    Invitation,
    Leaderboard,
    LeaderboardEntry,
    ListedFeedback,
    Member,
    MemberList,
    Project,
    ProjectList,
    QueuedTurn,
    RatingCreated,
    Routing,
    Rubric,
    RunOutcome,
    ShownStep,
    Step,
    StoredComparison,
    Turn,
    TurnDetail,
    TurnPage,
    TurnsCreated,
)
from learnportal_client.retry import NO_RETRY, Retry
from learnportal_client.routing import Choice, choose, probabilities
from learnportal_client.session import AsyncLearnSession, LearnSession
from learnportal_protocol.messages import (
    STRATEGY_NAMES,
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
    RefinementScope,
    StrategyName,
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

# The one place the version is written: the distribution's (pyproject.toml) is read from here.
__version__ = "0.1.0"

__all__ = [
    "NO_RETRY",
    "STRATEGY_NAMES",
    "TOKEN_VARIABLE",
    "URL_VARIABLE",
    "Action",
    "AdaptResponse",
    "AdaptedComponent",
    "AsyncLearnBuffer",
    "AsyncLearnClient",
    "AsyncLearnSession",
    "Capability",
    "Choice",
    "ComparisonsCreated",
    "ComponentRecord",
    "ConflictError",
    "Experience",
    "Feedback",
    "FeedbackDimension",
    "FeedbackPage",
    "FeedbackPolarity",
    "FeedbackSource",
    "ForbiddenError",
    "InvalidError",
    "InvalidReplyError",
    "Invitation",
    "Leaderboard",
    "LeaderboardEntry",
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
    "Member",
    "MemberList",
    "NotFoundError",
    "Project",
    "ProjectList",
    "QueuedTurn",
    "QuotaExceededError",
    "RateLimitedError",
    "RatedTurn",
    "RatingCreated",
    "RefinementScope",
    "Retry",
    "Routing",
    "Rubric",
    "RunOutcome",
    "ShownStep",
    "StatsResponse",
    "Step",
    "StoredComparison",
    "StrategyName",
    "StrategyNotAllowedError",
    "TooLargeError",
    "Turn",
    "TurnDetail",
    "TurnPage",
    "TurnsCreated",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "UnknownTypeError",
    "UnreachableError",
    "Unsent",
    "__version__",
    "choose",
    "probabilities",
]
