"""The response and error envelopes, and the capability description, on every transport."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from learnportal_protocol import ALL_MESSAGE_TYPES
from tests.builders import experience, experience_req, feedback, feedback_req, stats_req
from tests.harness import Actor, Send, http_send, ws_send
from tests.learnportal.a2e.communicator import a2e_send

ERROR_KEYS = {"type", "id", "version", "ts", "req_id", "code", "message", "details"}


def assert_response_envelope(
    reply: dict[str, Any], request: dict[str, Any], before: float, after: float
) -> None:
    assert reply["type"] == request["type"].removesuffix("/req") + "/resp"
    assert reply["req_id"] == request["id"]
    assert reply["id"] and reply["id"] != request["id"]
    uuid.UUID(reply["id"])
    assert reply["version"] == "1.0"
    assert before <= reply["ts"] <= after


def test_a_feedback_request_answers_with_its_response_envelope(
    transport: Send, agent: Actor
) -> None:
    request = feedback_req(feedback(component_name="c", source="self"))
    before = time.time()
    status, reply = transport(agent, request)
    assert status == 200, reply
    assert_response_envelope(reply, request, before, time.time())
    assert reply["recorded"] == 1
    assert set(reply) == {"type", "id", "version", "ts", "req_id", "recorded", "new_score"}


def test_an_experience_request_answers_with_its_response_envelope(
    transport: Send, agent: Actor
) -> None:
    request = experience_req(experience("c"))
    before = time.time()
    status, reply = transport(agent, request)
    assert status == 200, reply
    assert_response_envelope(reply, request, before, time.time())
    assert set(reply) == {"type", "id", "version", "ts", "req_id", "stored"}


def test_a_stats_request_answers_with_its_response_envelope(transport: Send, agent: Actor) -> None:
    request = stats_req()
    before = time.time()
    status, reply = transport(agent, request)
    assert status == 200, reply
    assert_response_envelope(reply, request, before, time.time())
    assert set(reply) == {"type", "id", "version", "ts", "req_id", "components"}


def test_every_response_gets_a_fresh_id(transport: Send, agent: Actor) -> None:
    request = stats_req()
    _, first = transport(agent, request)
    _, second = transport(agent, request)
    assert first["id"] != second["id"]
    assert first["req_id"] == second["req_id"] == request["id"]


def test_a_request_without_id_version_or_ts_is_answered(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, {"type": "learn/stats/req"})
    assert status == 200, reply
    assert reply["type"] == "learn/stats/resp"
    uuid.UUID(reply["req_id"])


def test_an_error_has_the_error_envelope_with_the_request_id(transport: Send, agent: Actor) -> None:
    request = feedback_req(feedback(score=2))
    before = time.time()
    status, reply = transport(agent, request)
    assert status == 400
    assert set(reply) == ERROR_KEYS
    assert reply["type"] == "learn/error"
    assert reply["version"] == "1.0"
    assert reply["req_id"] == request["id"]
    assert reply["id"] and reply["id"] != request["id"]
    assert before <= reply["ts"] <= time.time()
    assert reply["code"] == "invalid"
    assert isinstance(reply["message"], str) and reply["message"]
    assert all(set(item) == {"loc", "msg"} for item in reply["details"])


def test_an_error_on_a_body_without_a_readable_id_has_an_empty_req_id(
    transport: Send, agent: Actor
) -> None:
    status, reply = transport(agent, b"{oops")
    assert status == 400
    assert reply["req_id"] == ""
    assert reply["code"] == "invalid"


def test_get_describes_the_capability(agent: Actor) -> None:
    response = agent.client.get("/api/learn/")
    assert response.status_code == 200
    assert response.json() == {
        "capability": "learning",
        "namespace": "learn/*",
        "plugin": "LearnPlugin",
        "version": "1.0",
        "messages": ALL_MESSAGE_TYPES,
        "max_batch": 1000,
    }
    assert "learn/feedback/req" in response.json()["messages"]
    assert len(response.json()["messages"]) == 18


def test_discovery_says_the_hosts_batch_limit(agent: Actor, settings: Any) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 7
    assert agent.client.get("/api/learn/").json()["max_batch"] == 7


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        {"type": "learn/nope/req", "id": "u"},
        {"type": "learn/feedback/req", "id": "f", "feedbacks": [{"polarity": "odd", "score": 3}]},
        {
            "type": "learn/feedback/req",
            "id": "s",
            "feedbacks": [{"polarity": "positive", "source": "env"}],
        },
        {"type": "learn/stats/req", "id": "n", "component_name": "missing"},
    ],
    ids=["invalid-json", "unknown-type", "invalid-fields", "forbidden", "not-found"],
)
def test_every_transport_refuses_with_the_same_code_message_and_details(
    agent: Actor, body: dict[str, Any] | bytes
) -> None:
    http_status, over_http = http_send(agent, body)
    ws_status, over_ws = ws_send(agent, body)
    a2e_status, over_a2e = a2e_send(agent, body)
    assert http_status == ws_status == a2e_status >= 400
    same = ("type", "version", "req_id", "code", "message", "details")
    assert {key: over_http[key] for key in same} == {key: over_ws[key] for key in same}
    # /a2e answers the A2E base protocol's `error`, with the learn/error's details in `detail`
    assert over_a2e["type"] == "error"
    assert over_a2e["detail"]["details"] == over_http["details"]
    assert {key: over_a2e[key] for key in same[1:5]} == {key: over_http[key] for key in same[1:5]}
