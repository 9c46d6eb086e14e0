"""The 18 `learn/*` messages: nine requests and their responses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from pydantic import Field, PrivateAttr

from learnportal_protocol.ids import new_message_id, now
from learnportal_protocol.models import (
    Experience,
    Feedback,
    FreeJson,
    Name,
    RequiredName,
    RequiredShortName,
    RiskLevel,
    ShortName,
    StrictModel,
    Timestamp,
)

PROTOCOL_VERSION: Final = "1.0"
HISTORY_PAGE_MAX: Final = 500  # most entries a history reply holds
HISTORY_CURSOR_MAX: Final = 200  # a cursor is an entry's time and id, `<ts>_<id>`
HISTORY_CURSOR_PATTERN: Final = r"^(-?[0-9]{1,20}(\.[0-9]{1,20})?(e[+-]?[0-9]{1,2})?_[0-9]{1,18})?$"

# The adapt strategies a host knows (LEARNPORTAL_ADAPT_STRATEGIES allows some of them) and the
# refinement scopes the spec names. The request fields stay plain short names: a strategy this
# host does not allow is the host's to refuse (`strategy_not_allowed`), not a parse error, and a
# plan keeps the scope it was asked with.
StrategyName = Literal["ppo", "ucb1", "epsilon_greedy", "softmax", "custom"]
STRATEGY_NAMES: Final[tuple[StrategyName, ...]] = get_args(StrategyName)
DEFAULT_STRATEGY: Final[StrategyName] = "ppo"
RefinementScope = Literal["local"]
DEFAULT_SCOPE: Final[RefinementScope] = "local"


class Envelope(StrictModel):
    if TYPE_CHECKING:
        # Every message names its type, a field of its own with a Literal default; the base
        # has no such field, so that each message keeps the order of its fields.
        @property
        def type(self) -> str: ...

    id: RequiredName = Field(default_factory=new_message_id)
    version: Literal["1.0"] = PROTOCOL_VERSION
    ts: Timestamp = Field(default_factory=now)
    _sent: dict[str, Any] | None = PrivateAttr(default=None)

    def sent_items(self, field: str) -> list[dict[str, Any]] | None:
        """The items of a batch field exactly as the client sent them (JSON), if parsed from one."""
        return None if self._sent is None else self._sent.get(field)


class Response(Envelope):
    req_id: str = ""


# --- requests ---------------------------------------------------------------------------------


class LearnFeedbackRequest(Envelope):
    type: Literal["learn/feedback/req"] = "learn/feedback/req"
    feedbacks: list[Feedback]


class LearnExperienceRequest(Envelope):
    type: Literal["learn/experience/req"] = "learn/experience/req"
    experiences: list[Experience] = Field(default_factory=list)


class LearnAdaptRequest(Envelope):
    type: Literal["learn/adapt/req"] = "learn/adapt/req"
    component_name: Name = ""
    strategy: ShortName = DEFAULT_STRATEGY


class LearnStatsRequest(Envelope):
    type: Literal["learn/stats/req"] = "learn/stats/req"
    component_name: Name = ""


class LearnRefinementPlanRequest(Envelope):
    type: Literal["learn/refinement/plan/req"] = "learn/refinement/plan/req"
    component_name: Name = ""
    scope: ShortName = DEFAULT_SCOPE


class LearnRefinementApplyRequest(Envelope):
    type: Literal["learn/refinement/apply/req"] = "learn/refinement/apply/req"
    proposal: dict[str, FreeJson]


class LearnRefinementRollbackRequest(Envelope):
    type: Literal["learn/refinement/rollback/req"] = "learn/refinement/rollback/req"
    refinement_id: RequiredShortName


class LearnRefinementReviewRequest(Envelope):
    type: Literal["learn/refinement/review/req"] = "learn/refinement/review/req"
    proposal: dict[str, FreeJson]


class LearnRefinementHistoryRequest(Envelope):
    type: Literal["learn/refinement/history/req"] = "learn/refinement/history/req"
    # The host's additions, both optional: at most `limit` entries, from a reply's `next_cursor`.
    limit: int = Field(default=HISTORY_PAGE_MAX, ge=1, le=HISTORY_PAGE_MAX)
    cursor: str = Field(default="", max_length=HISTORY_CURSOR_MAX, pattern=HISTORY_CURSOR_PATTERN)


# --- responses --------------------------------------------------------------------------------


class LearnFeedbackResponse(Response):
    type: Literal["learn/feedback/resp"] = "learn/feedback/resp"
    recorded: int = 0
    new_score: float | None = None


class LearnExperienceResponse(Response):
    type: Literal["learn/experience/resp"] = "learn/experience/resp"
    stored: int = 0


class LearnAdaptResponse(Response):
    type: Literal["learn/adapt/resp"] = "learn/adapt/resp"
    updated: list[dict[str, Any]] = Field(default_factory=list)
    message: str = ""


class LearnStatsResponse(Response):
    type: Literal["learn/stats/resp"] = "learn/stats/resp"
    components: list[dict[str, Any]] = Field(default_factory=list)


class LearnRefinementPlanResponse(Response):
    type: Literal["learn/refinement/plan/resp"] = "learn/refinement/plan/resp"
    plan_id: str
    proposals: list[dict[str, Any]] = Field(default_factory=list)
    status: str


# What an apply, a rollback and the history answer, whatever the transport: the fields of their
# response envelopes, and the host's REST answers (refinement.answers) as they are.


class Applied(StrictModel):
    """What an apply did."""

    refinement_id: str
    applied_edits: int = 0
    failed_edits: int = 0
    rollback_available: bool = False
    error: str = ""


class Rollback(StrictModel):
    """What a rollback did."""

    refinement_id: str
    rolled_back: bool = False
    error: str = ""


class History(StrictModel):
    """The refinement history, newest first."""

    entries: list[dict[str, Any]] = Field(default_factory=list)
    # The host's addition: where the next page starts (the request's `cursor`), null at the end.
    next_cursor: str | None = None


class LearnRefinementApplyResponse(Applied, Response):
    type: Literal["learn/refinement/apply/resp"] = "learn/refinement/apply/resp"


class LearnRefinementRollbackResponse(Rollback, Response):
    type: Literal["learn/refinement/rollback/resp"] = "learn/refinement/rollback/resp"


class LearnRefinementReviewResponse(Response):
    type: Literal["learn/refinement/review/resp"] = "learn/refinement/review/resp"
    approved: bool = False
    confidence_adjusted: bool = False
    reasons: list[str] = Field(default_factory=list)
    # A review's risk is never none (RiskLevel.NONE is a limit: a machine applies nothing).
    risk_level: Literal[RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH] = RiskLevel.LOW


class LearnRefinementHistoryResponse(History, Response):
    type: Literal["learn/refinement/history/resp"] = "learn/refinement/history/resp"


REQUEST_MODELS: dict[str, type[Envelope]] = {
    model.model_fields["type"].default: model
    for model in (
        LearnFeedbackRequest,
        LearnExperienceRequest,
        LearnAdaptRequest,
        LearnStatsRequest,
        LearnRefinementPlanRequest,
        LearnRefinementApplyRequest,
        LearnRefinementRollbackRequest,
        LearnRefinementReviewRequest,
        LearnRefinementHistoryRequest,
    )
}

RESPONSE_MODELS: dict[str, type[Response]] = {
    model.model_fields["type"].default: model
    for model in (
        LearnFeedbackResponse,
        LearnExperienceResponse,
        LearnAdaptResponse,
        LearnStatsResponse,
        LearnRefinementPlanResponse,
        LearnRefinementApplyResponse,
        LearnRefinementRollbackResponse,
        LearnRefinementReviewResponse,
        LearnRefinementHistoryResponse,
    )
}


def response_type_for(request_type: str) -> str:
    return request_type.removesuffix("/req") + "/resp"


ALL_MESSAGE_TYPES: list[str] = [
    name
    for request_type in REQUEST_MODELS
    for name in (request_type, response_type_for(request_type))
]


class Capability(StrictModel):
    """What `GET /api/learn/` answers, for discovery: the learning capability and its messages."""

    capability: str = "learning"
    namespace: str = "learn/*"
    plugin: str = "LearnPlugin"
    version: str = PROTOCOL_VERSION
    messages: list[str] = Field(default_factory=lambda: list(ALL_MESSAGE_TYPES))
    # Host addition (docs/extensions.md): the most feedbacks or experiences one request may
    # carry (LEARNPORTAL_MAX_BATCH), so that a client splits larger batches instead of failing.
    max_batch: int = Field(default=1000, ge=1)
