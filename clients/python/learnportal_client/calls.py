"""The learn/* calls, one typed method a message, over any way of sending one envelope.

`LearnCalls` (blocking) and `AsyncLearnCalls` are written over `send(request) -> Response` and
`batch_limit()`; the HTTP clients and the WebSocket sessions provide those two. A batch larger
than the host's `max_batch` is sent as several requests, in order; their counts are summed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from learnportal_client.errors import InvalidReplyError
from learnportal_client.records import AdaptResponse, StatsResponse
from learnportal_client.wire import build, model_of
from learnportal_protocol.messages import (
    DEFAULT_SCOPE,
    DEFAULT_STRATEGY,
    Envelope,
    LearnAdaptRequest,
    LearnExperienceRequest,
    LearnExperienceResponse,
    LearnFeedbackRequest,
    LearnFeedbackResponse,
    LearnRefinementApplyRequest,
    LearnRefinementApplyResponse,
    LearnRefinementHistoryRequest,
    LearnRefinementHistoryResponse,
    LearnRefinementPlanRequest,
    LearnRefinementPlanResponse,
    LearnRefinementReviewRequest,
    LearnRefinementReviewResponse,
    LearnRefinementRollbackRequest,
    LearnRefinementRollbackResponse,
    LearnStatsRequest,
    RefinementScope,
    Response,
    StrategyName,
)
from learnportal_protocol.models import Experience, Feedback

Reply = TypeVar("Reply", bound=Response)
FeedbackLike = Feedback | Mapping[str, Any]
ExperienceLike = Experience | Mapping[str, Any]
Proposal = Mapping[str, Any]

# Requests that may be sent twice when no answer came back: the ids dedupe a batch, the rest
# only read. (An adapt, a plan or an apply sent twice could act twice.)
RESEND_SAFE = frozenset(
    {
        "learn/feedback/req",
        "learn/experience/req",
        "learn/stats/req",
        "learn/refinement/history/req",
    }
)


def chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


def feedback_requests(feedbacks: Iterable[FeedbackLike], limit: int) -> list[LearnFeedbackRequest]:
    items = [model_of(Feedback, f, ("feedbacks", i)) for i, f in enumerate(feedbacks)]
    return [build(LearnFeedbackRequest, feedbacks=part) for part in chunks(items, limit)]


def experience_requests(
    experiences: Iterable[ExperienceLike], limit: int
) -> list[LearnExperienceRequest]:
    items = [model_of(Experience, e, ("experiences", i)) for i, e in enumerate(experiences)]
    return [build(LearnExperienceRequest, experiences=part) for part in chunks(items, limit)]


def expect(reply: Response, kind: type[Reply]) -> Reply:
    if not isinstance(reply, kind):
        raise InvalidReplyError(f"expected {kind.__name__}, got {type(reply).__name__}")
    return reply


def feedback_total(replies: list[Response]) -> LearnFeedbackResponse:
    last = expect(replies[-1], LearnFeedbackResponse)
    recorded = sum(expect(r, LearnFeedbackResponse).recorded for r in replies)
    return last.model_copy(update={"recorded": recorded})


def experience_total(replies: list[Response]) -> LearnExperienceResponse:
    last = expect(replies[-1], LearnExperienceResponse)
    stored = sum(expect(r, LearnExperienceResponse).stored for r in replies)
    return last.model_copy(update={"stored": stored})


def adapt_request(component_name: str, strategy: StrategyName) -> LearnAdaptRequest:
    return build(LearnAdaptRequest, component_name=component_name, strategy=strategy)


def stats_request(component_name: str) -> LearnStatsRequest:
    return build(LearnStatsRequest, component_name=component_name)


def plan_request(component_name: str, scope: RefinementScope) -> LearnRefinementPlanRequest:
    return build(LearnRefinementPlanRequest, component_name=component_name, scope=scope)


def review_request(proposal: Proposal) -> LearnRefinementReviewRequest:
    return build(LearnRefinementReviewRequest, proposal=dict(proposal))


def apply_request(proposal: Proposal) -> LearnRefinementApplyRequest:
    return build(LearnRefinementApplyRequest, proposal=dict(proposal))


def rollback_request(refinement_id: str) -> LearnRefinementRollbackRequest:
    return build(LearnRefinementRollbackRequest, refinement_id=refinement_id)


class LearnCalls(ABC):
    """The nine learn/* requests and their responses, blocking."""

    @abstractmethod
    def send(self, request: Envelope) -> Response:
        """Send one request envelope; its response, or LearnError."""

    @abstractmethod
    def batch_limit(self) -> int:
        """The most items one request may carry (discovery's `max_batch`)."""

    def feedback(self, feedbacks: Iterable[FeedbackLike]) -> LearnFeedbackResponse:
        """learn/feedback: feedbacks as models or dicts; `recorded` counts every one sent."""
        requests = feedback_requests(feedbacks, self.batch_limit())
        return feedback_total([self.send(r) for r in requests])

    def experience(self, experiences: Iterable[ExperienceLike]) -> LearnExperienceResponse:
        """learn/experience: experiences as models or dicts; `stored` counts every one sent."""
        requests = experience_requests(experiences, self.batch_limit())
        return experience_total([self.send(r) for r in requests])

    def adapt(
        self, component_name: str = "", strategy: StrategyName = DEFAULT_STRATEGY
    ) -> AdaptResponse:
        """learn/adapt by `strategy` (one of STRATEGY_NAMES; the host allows some, and answers
        `strategy_not_allowed` for the others): `updated` holds each component it moved."""
        return expect(self.send(adapt_request(component_name, strategy)), AdaptResponse)

    def stats(self, component_name: str = "") -> StatsResponse:
        """learn/stats: `components` holds each component's record (all, or the one named)."""
        return expect(self.send(stats_request(component_name)), StatsResponse)

    def refinement_plan(
        self, component_name: str = "", scope: RefinementScope = DEFAULT_SCOPE
    ) -> LearnRefinementPlanResponse:
        reply = self.send(plan_request(component_name, scope))
        return expect(reply, LearnRefinementPlanResponse)

    def refinement_review(self, proposal: Proposal) -> LearnRefinementReviewResponse:
        return expect(self.send(review_request(proposal)), LearnRefinementReviewResponse)

    def refinement_apply(self, proposal: Proposal) -> LearnRefinementApplyResponse:
        return expect(self.send(apply_request(proposal)), LearnRefinementApplyResponse)

    def refinement_rollback(self, refinement_id: str) -> LearnRefinementRollbackResponse:
        reply = self.send(rollback_request(refinement_id))
        return expect(reply, LearnRefinementRollbackResponse)

    def refinement_history(self) -> LearnRefinementHistoryResponse:
        reply = self.send(LearnRefinementHistoryRequest())
        return expect(reply, LearnRefinementHistoryResponse)


class AsyncLearnCalls(ABC):
    """The nine learn/* requests and their responses, awaited."""

    @abstractmethod
    async def send(self, request: Envelope) -> Response:
        """Send one request envelope; its response, or LearnError."""

    @abstractmethod
    async def batch_limit(self) -> int:
        """The most items one request may carry (discovery's `max_batch`)."""

    async def feedback(self, feedbacks: Iterable[FeedbackLike]) -> LearnFeedbackResponse:
        requests = feedback_requests(feedbacks, await self.batch_limit())
        return feedback_total([await self.send(r) for r in requests])

    async def experience(self, experiences: Iterable[ExperienceLike]) -> LearnExperienceResponse:
        requests = experience_requests(experiences, await self.batch_limit())
        return experience_total([await self.send(r) for r in requests])

    async def adapt(
        self, component_name: str = "", strategy: StrategyName = DEFAULT_STRATEGY
    ) -> AdaptResponse:
        return expect(await self.send(adapt_request(component_name, strategy)), AdaptResponse)

    async def stats(self, component_name: str = "") -> StatsResponse:
        return expect(await self.send(stats_request(component_name)), StatsResponse)

    async def refinement_plan(
        self, component_name: str = "", scope: RefinementScope = DEFAULT_SCOPE
    ) -> LearnRefinementPlanResponse:
        reply = await self.send(plan_request(component_name, scope))
        return expect(reply, LearnRefinementPlanResponse)

    async def refinement_review(self, proposal: Proposal) -> LearnRefinementReviewResponse:
        return expect(await self.send(review_request(proposal)), LearnRefinementReviewResponse)

    async def refinement_apply(self, proposal: Proposal) -> LearnRefinementApplyResponse:
        return expect(await self.send(apply_request(proposal)), LearnRefinementApplyResponse)

    async def refinement_rollback(self, refinement_id: str) -> LearnRefinementRollbackResponse:
        reply = await self.send(rollback_request(refinement_id))
        return expect(reply, LearnRefinementRollbackResponse)

    async def refinement_history(self) -> LearnRefinementHistoryResponse:
        reply = await self.send(LearnRefinementHistoryRequest())
        return expect(reply, LearnRefinementHistoryResponse)
