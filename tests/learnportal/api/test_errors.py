"""Every error code of the contract (docs/contract.md), with its status, on each transport where
it applies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.db import OperationalError
from rest_framework.test import APIClient

from core.accounts import services
from core.accounts.models import ApiToken
from tests.builders import (
    experience,
    experience_req,
    feedback,
    feedback_req,
    stats_req,
    stored,
)

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Actor, Send

# --- invalid and unknown_type -----------------------------------------------------------------


@pytest.mark.parametrize("body", [b"not json", b'{"type": "learn/stats/req"', b"[1, 2]", b"null"])
def test_a_body_that_is_not_one_json_object_is_invalid(
    transport: Send, agent: Actor, body: bytes
) -> None:
    status, reply = transport(agent, body)
    assert (status, reply["code"]) == (400, "invalid")
    assert reply["type"] == "learn/error"


def test_a_bad_field_is_invalid_and_located(transport: Send, agent: Actor) -> None:
    request = feedback_req(feedback(), feedback(score=-1.5, confidence=2))
    status, reply = transport(agent, request)
    assert (status, reply["code"]) == (400, "invalid")
    locs = [item["loc"] for item in reply["details"]]
    assert locs == [["feedbacks", 1, "score"], ["feedbacks", 1, "confidence"]]
    assert all(item["msg"] for item in reply["details"])
    assert reply["req_id"] == request["id"]


@pytest.mark.parametrize(
    "field, value",
    [("score", "0.5"), ("score", True), ("confidence", "1"), ("ts", False)],
)
def test_a_number_sent_as_a_string_or_boolean_is_invalid(
    transport: Send, agent: Actor, field: str, value: Any
) -> None:
    status, reply = transport(agent, feedback_req(feedback(**{field: value})))
    assert (status, reply["code"]) == (400, "invalid")
    assert reply["details"][0]["loc"] == ["feedbacks", 0, field]


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "1e400"])
def test_non_finite_numbers_are_invalid_even_inside_state(
    transport: Send, agent: Actor, raw: str
) -> None:
    template = experience_req(experience(state={"x": "@RAW@"}))
    body = orjson.dumps(template).decode().replace('"@RAW@"', raw)
    status, reply = transport(agent, body)
    assert (status, reply["code"]) == (400, "invalid")
    assert stored()["experience"] == 0


def test_an_unknown_field_is_invalid(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, feedback_req(feedback(stars=5)))
    assert (status, reply["code"]) == (400, "invalid")
    assert reply["details"][0]["loc"] == ["feedbacks", 0, "stars"]


@pytest.mark.parametrize(
    "data",
    [
        {"type": "learn/feedback/req", "feedbacks": [{"polarity": "corrective"}]},
        {
            "type": "learn/feedback/req",
            "feedbacks": [
                {
                    "polarity": "neutral",
                    "rated_turn": {"prompt": "p", "response": "abc", "model": "m"},
                    "correction_span": [1, 9],
                }
            ],
        },
    ],
    ids=["corrective-without-correction", "span-outside-response"],
)
def test_the_spec_model_rules_are_invalid_over_the_wire(
    transport: Send, agent: Actor, data: dict[str, Any]
) -> None:
    status, reply = transport(agent, data)
    assert (status, reply["code"]) == (400, "invalid")
    assert reply["details"][0]["loc"][:2] == ["feedbacks", 0]


@pytest.mark.parametrize("message_type", ["learn/bogus/req", "learn/stats/resp", "skill/discover"])
def test_a_type_that_is_not_a_learn_request_is_unknown_type(
    transport: Send, agent: Actor, message_type: str
) -> None:
    status, reply = transport(agent, {"type": message_type, "id": "u1"})
    assert (status, reply["code"]) == (400, "unknown_type")
    assert reply["req_id"] == "u1"


@pytest.mark.parametrize(
    "data",
    [
        {"type": "learn/adapt/req", "strategy": 1},
        {"type": "learn/adapt/req", "component_name": "x", "aggressive": True},
        {"type": "learn/refinement/plan/req", "scope": None},
        {"type": "learn/refinement/review/req"},
        {"type": "learn/refinement/apply/req", "proposal": []},
        {"type": "learn/refinement/rollback/req", "refinement_id": 7},
        {"type": "learn/refinement/history/req", "limit": "5"},
    ],
    ids=lambda data: data["type"].split("/", 1)[1],
)
def test_an_invalid_adapt_or_refinement_request_is_invalid(
    transport: Send, agent: Actor, data: dict[str, Any]
) -> None:
    status, reply = transport(agent, {"id": "bad-1", **data})
    assert (status, reply["code"]) == (400, "invalid")
    assert reply["req_id"] == "bad-1"


# --- unauthenticated (HTTP; the WebSocket handshake is in test_websocket) ----------------------


def test_no_credentials_is_unauthenticated(anonymous: Actor) -> None:
    response = anonymous.learn(stats_req())
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
    assert response.json()["type"] == "learn/error"


def test_a_revoked_token_is_unauthenticated_and_changes_nothing(agent: Actor) -> None:
    assert agent.learn(stats_req()).status_code == 200
    services.token_revoke(token=ApiToken.objects.get(name="agent-1"))
    response = agent.learn(feedback_req(feedback(component_name="c")))
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
    assert stored()["feedback"] == 0


@pytest.mark.parametrize(
    "header", ["Bearer lp_not-a-real-token", "Bearer", "Basic YTpi", "Token x"]
)
def test_a_bad_authorization_header_is_unauthenticated(db: None, header: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.post("/api/learn/", data=b"{}", content_type="application/json")
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_a_token_of_a_deactivated_person_is_unauthenticated(ann: Actor) -> None:
    from core.accounts.models import User

    person = User.objects.get(username="ann")
    person.is_active = False
    person.save()
    assert ann.learn(stats_req()).status_code == 401


# --- too_large --------------------------------------------------------------------------------


def test_more_feedbacks_than_the_batch_limit_is_too_large(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 2
    status, reply = transport(agent, feedback_req(*[feedback() for _ in range(3)]))
    assert (status, reply["code"]) == (413, "too_large")
    assert stored()["feedback"] == 0


def test_a_body_over_the_size_limit_is_too_large(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    settings.LEARNPORTAL_MAX_BODY_BYTES = 4096
    request = feedback_req(feedback(comment="x" * 5000))
    status, reply = transport(agent, request)
    assert (status, reply["code"]) == (413, "too_large")
    assert reply["type"] == "learn/error"
    assert stored()["feedback"] == 0
    small = feedback_req(feedback(comment="x" * 100))
    assert transport(agent, small)[0] == 200


def test_an_http_body_over_the_size_limit_answers_json(agent: Actor, settings: Settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    response = agent.learn(feedback_req(feedback(comment="y" * 4000)))
    assert response.status_code == 413
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "too_large"


# --- quota_exceeded is in test_experience; rate_limited ---------------------------------------


def test_too_many_requests_from_one_principal_are_rate_limited(
    transport: Send, agent: Actor, env: Actor, settings: Settings, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 0.1  # a burst of one, then one every ten seconds
    assert transport(agent, stats_req())[0] == 200
    status, reply = transport(agent, feedback_req(feedback(component_name="c")))
    assert (status, reply["code"]) == (429, "rate_limited")
    assert stored()["feedback"] == 0
    assert transport(env, stats_req())[0] == 200


def test_a_rate_limited_http_answer_says_when_to_retry(
    agent: Actor, settings: Settings, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 0.1
    agent.learn(stats_req())
    response = agent.learn(stats_req())
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited"
    assert 1 <= int(response["Retry-After"]) <= 10


# --- unavailable ------------------------------------------------------------------------------


def _database_is_locked(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("database is locked")


@pytest.mark.parametrize(
    "target, request_body",
    [
        ("feedback.handlers.feedback_record", feedback_req(feedback())),
        ("feedback.handlers.experience_store", experience_req(experience())),
        ("feedback.handlers.component_records", stats_req()),
    ],
    ids=["feedback", "experience", "stats"],
)
def test_a_busy_database_is_unavailable_never_a_500(
    transport: Send,
    agent: Actor,
    monkeypatch: pytest.MonkeyPatch,
    target: str,
    request_body: dict[str, Any],
) -> None:
    monkeypatch.setattr(target, _database_is_locked)
    status, reply = transport(agent, request_body)
    assert (status, reply["code"]) == (503, "unavailable")
    assert reply["req_id"] == request_body["id"]


def test_an_unavailable_http_answer_says_when_to_retry(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("feedback.handlers.feedback_record", _database_is_locked)
    response = agent.learn(feedback_req(feedback()))
    assert response.status_code == 503
    assert int(response["Retry-After"]) >= 1
    assert response.json()["code"] == "unavailable"


def test_a_database_down_while_authenticating_is_unavailable(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "core.accounts.credentials.resolve",
        _database_is_locked,
    )
    response = agent.learn(stats_req())
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    assert int(response["Retry-After"]) >= 1


def test_a_database_error_writing_turns_is_unavailable(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("feedback.api.turns_submit", _database_is_locked)
    body = {
        "turns": [
            {"correlation_id": "t", "rated_turn": {"prompt": "p", "response": "r", "model": "m"}}
        ]
    }
    response = agent.client.post(
        "/api/turns/", data=orjson.dumps(body), content_type="application/json"
    )
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
