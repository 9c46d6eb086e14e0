"""What the spec (docs/learning-capability-spec.txt) fills in when a client leaves it out."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import orjson
import pytest

from learnportal_protocol import (
    REQUEST_MODELS,
    RESPONSE_MODELS,
    Experience,
    Feedback,
    FeedbackDimension,
    FeedbackPolarity,
    FeedbackSource,
    parse_request,
)
from learnportal_protocol.messages import (
    LearnExperienceResponse,
    LearnFeedbackResponse,
    LearnRefinementApplyResponse,
    LearnRefinementReviewResponse,
)

# The least each request needs: the fields without a default in the spec.
MINIMAL_REQUESTS: dict[str, dict[str, Any]] = {
    "learn/feedback/req": {"feedbacks": []},
    "learn/experience/req": {},
    "learn/adapt/req": {},
    "learn/stats/req": {},
    "learn/refinement/plan/req": {},
    "learn/refinement/review/req": {"proposal": {}},
    "learn/refinement/apply/req": {"proposal": {}},
    "learn/refinement/rollback/req": {"refinement_id": "ref-1"},
    "learn/refinement/history/req": {},
}


def parse(data: dict[str, Any]) -> Any:
    return parse_request(orjson.dumps(data), max_batch=1000)


def is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def test_every_request_type_has_a_minimal_form() -> None:
    assert set(MINIMAL_REQUESTS) == set(REQUEST_MODELS)


@pytest.mark.parametrize("message_type", sorted(MINIMAL_REQUESTS))
def test_a_request_may_leave_out_id_version_and_ts(message_type: str) -> None:
    before = time.time()
    request = parse({"type": message_type, **MINIMAL_REQUESTS[message_type]})
    after = time.time()
    assert is_uuid(request.id)
    assert request.version == "1.0"
    assert before <= request.ts <= after


def test_two_requests_without_ids_get_different_ids() -> None:
    first = parse({"type": "learn/stats/req"})
    second = parse({"type": "learn/stats/req"})
    assert first.id != second.id


def test_optional_request_fields_take_the_spec_defaults() -> None:
    assert parse({"type": "learn/experience/req"}).experiences == []
    assert parse({"type": "learn/stats/req"}).component_name == ""
    adapt = parse({"type": "learn/adapt/req"})
    assert (adapt.component_name, adapt.strategy) == ("", "ppo")
    plan = parse({"type": "learn/refinement/plan/req"})
    assert (plan.component_name, plan.scope) == ("", "local")


@pytest.mark.parametrize("message_type", sorted(RESPONSE_MODELS))
def test_a_response_gets_a_fresh_id_version_ts_and_empty_req_id(message_type: str) -> None:
    required = {"plan_id": "p", "status": "empty", "refinement_id": "r"}
    model = RESPONSE_MODELS[message_type]
    fields: dict[str, Any] = {
        name: value for name, value in required.items() if name in model.model_fields
    }
    before = time.time()
    first, second = model(**fields), model(**fields)
    after = time.time()
    assert first.type == message_type
    assert is_uuid(first.id) and first.id != second.id
    assert first.version == "1.0"
    assert before <= first.ts <= after
    assert first.req_id == ""


def test_response_defaults_are_the_spec_defaults() -> None:
    assert LearnFeedbackResponse().model_dump(include={"recorded", "new_score"}) == {
        "recorded": 0,
        "new_score": None,
    }
    assert LearnExperienceResponse().stored == 0
    review = LearnRefinementReviewResponse()
    assert (review.approved, review.confidence_adjusted, review.reasons, review.risk_level) == (
        False,
        False,
        [],
        "low",
    )
    apply = LearnRefinementApplyResponse(refinement_id="r")
    assert (apply.applied_edits, apply.failed_edits, apply.rollback_available, apply.error) == (
        0,
        0,
        False,
        "",
    )


def test_a_feedback_with_only_a_polarity_takes_every_spec_default() -> None:
    before_ns = time.time_ns()
    item = Feedback.model_validate_json(b'{"polarity": "positive"}')
    after_ns = time.time_ns()
    assert re.fullmatch(r"b_\d+", item.feedback_id)
    assert before_ns <= int(item.feedback_id[2:]) <= after_ns + 1_000_000
    assert before_ns / 1e9 - 1 <= item.ts <= after_ns / 1e9 + 1
    assert item.correlation_id == "" and item.session_id == ""
    assert item.rated_turn is None
    assert item.score == 0.0
    assert item.dimension is FeedbackDimension.HELPFULNESS
    assert item.confidence == 1.0
    assert item.comment == "" and item.correction == ""
    assert item.correction_span is None
    assert item.source is FeedbackSource.HUMAN
    assert item.annotator_id == ""


def test_feedback_ids_made_in_a_tight_loop_are_all_different() -> None:
    ids = [Feedback(polarity=FeedbackPolarity.POSITIVE).feedback_id for _ in range(10_000)]
    assert len(set(ids)) == 10_000
    assert all(re.fullmatch(r"b_\d+", feedback_id) for feedback_id in ids)


def test_an_experience_with_nothing_takes_every_spec_default() -> None:
    before = time.time()
    item = Experience.model_validate_json(b"{}")
    after = time.time()
    assert is_uuid(item.experience_id)
    assert item.state == {} and item.next_state == {}
    assert item.action.component_name == ""
    assert item.action.model_dump(exclude_none=True) == {"component_name": ""}
    assert item.reward == 0.0
    assert item.done is False
    assert item.episode_id == ""
    assert item.step == 0
    assert before <= item.ts <= after


def test_experience_ids_are_different_uuids() -> None:
    ids = {Experience().experience_id for _ in range(1000)}
    assert len(ids) == 1000
    assert all(is_uuid(experience_id) for experience_id in ids)
