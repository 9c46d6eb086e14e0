"""Every learn/* message through `LearnClient` against a live server: typed answers, one error."""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

import pytest

from feedback.models import Experience as StoredExperience
from feedback.models import Feedback as StoredFeedback
from learnportal_client import (
    Action,
    AsyncLearnClient,
    AsyncLearnSession,
    Experience,
    Feedback,
    FeedbackPolarity,
    LearnAdaptResponse,
    LearnClient,
    LearnError,
    LearnExperienceResponse,
    LearnFeedbackResponse,
    LearnRefinementApplyResponse,
    LearnRefinementHistoryResponse,
    LearnRefinementPlanResponse,
    LearnRefinementReviewResponse,
    LearnRefinementRollbackResponse,
    LearnSession,
    LearnStatsResponse,
)
from learnportal_protocol import RESPONSE_MODELS, RiskLevel

if TYPE_CHECKING:
    from learnportal_client.calls import LearnCalls
    from tests.client.conftest import Portal

CALLS = {
    "feedback": "learn/feedback/resp",
    "experience": "learn/experience/resp",
    "adapt": "learn/adapt/resp",
    "stats": "learn/stats/resp",
    "refinement_plan": "learn/refinement/plan/resp",
    "refinement_review": "learn/refinement/review/resp",
    "refinement_apply": "learn/refinement/apply/resp",
    "refinement_rollback": "learn/refinement/rollback/resp",
    "refinement_history": "learn/refinement/history/resp",
}


def calls(client: LearnCalls) -> None:
    """Each of the nine requests once; every answer is its own response model."""
    experiences: list[Experience | dict[str, Any]] = [
        Experience(action=Action(component_name="search", success=True), reward=1.0),
        {"action": {"component_name": "search", "success": False}, "reward": -1.0},
    ]
    stored = client.experience(experiences)
    assert isinstance(stored, LearnExperienceResponse)
    assert stored.stored == 2
    recorded = client.feedback(
        [Feedback(polarity=FeedbackPolarity.POSITIVE, score=0.5, component_name="search")]
    )
    assert isinstance(recorded, LearnFeedbackResponse)
    assert (recorded.recorded, recorded.new_score) == (1, 0.5)
    stats = client.stats("search")
    assert isinstance(stats, LearnStatsResponse)
    assert stats.components[0].calls_total == 2
    adapted = client.adapt(strategy="ucb1")
    assert isinstance(adapted, LearnAdaptResponse)
    plan = client.refinement_plan("search")
    assert isinstance(plan, LearnRefinementPlanResponse)
    proposal = {
        "target": "router_weight",
        "op": "update",
        "path": "router.weights.fresh",
        "old_value": 0.5,
        "new_value": 0.55,
    }
    review = client.refinement_review(proposal)
    assert isinstance(review, LearnRefinementReviewResponse)
    assert review.approved, review.reasons
    assert review.risk_level is RiskLevel.LOW
    applied = client.refinement_apply(proposal)
    assert isinstance(applied, LearnRefinementApplyResponse)
    assert applied.applied_edits == 1, applied.error
    rolled = client.refinement_rollback(applied.refinement_id)
    assert isinstance(rolled, LearnRefinementRollbackResponse)
    assert rolled.rolled_back, rolled.error
    history = client.refinement_history()
    assert isinstance(history, LearnRefinementHistoryResponse)
    assert history.entries


@pytest.mark.parametrize("kind", [LearnClient, AsyncLearnClient, LearnSession, AsyncLearnSession])
def test_every_message_has_one_method_typed_with_its_response_model(kind: type) -> None:
    assert set(CALLS.values()) == set(RESPONSE_MODELS)
    for name, response_type in CALLS.items():
        hints = typing.get_type_hints(getattr(kind, name))
        assert issubclass(hints["return"], RESPONSE_MODELS[response_type]), name


def test_each_call_answers_its_response_model(client: LearnClient) -> None:
    calls(client)


def test_a_refusal_is_a_learn_error_with_code_message_and_details(client: LearnClient) -> None:
    with pytest.raises(LearnError) as refused:
        client.feedback([{"polarity": "positive", "source": "env"}])
    assert refused.value.code == "forbidden"
    assert refused.value.status == 403
    assert refused.value.message
    assert refused.value.details[0]["loc"][:2] == ["feedbacks", 0]
    assert StoredFeedback.objects.count() == 0


def test_an_unknown_refinement_is_not_found(client: LearnClient) -> None:
    with pytest.raises(LearnError) as refused:
        client.refinement_rollback("no-such-refinement")
    assert refused.value.code == "not_found"


def test_an_item_the_host_would_refuse_is_refused_before_sending(client: LearnClient) -> None:
    with pytest.raises(LearnError) as refused:
        client.feedback([{"polarity": "positive", "score": 3}])
    assert refused.value.code == "invalid"
    assert refused.value.details[0]["loc"] == ["feedbacks", 0, "score"]
    assert refused.value.status is None  # never sent


def test_a_feedback_without_source_gets_the_credentials_own(client: LearnClient) -> None:
    client.feedback([{"polarity": "negative", "score": -0.5, "component_name": "search"}])
    assert StoredFeedback.objects.get().source == "self"


def test_a_batch_sent_again_is_stored_once(client: LearnClient) -> None:
    batch = [Experience(action=Action(component_name="search"), reward=0.5) for _ in range(3)]
    assert client.experience(batch).stored == 3
    assert client.experience(batch).stored == 3  # counted, not stored again
    assert StoredExperience.objects.count() == 3


def test_a_bad_token_is_unauthenticated(portal: Portal) -> None:
    with LearnClient(portal.url, "not-a-token") as client, pytest.raises(LearnError) as refused:
        client.stats()
    assert (refused.value.code, refused.value.status) == ("unauthenticated", 401)
