"""Every REST endpoint is limited per principal (or per client address without one), with the
`learn/error` envelope of `rate_limited` and a `Retry-After` that is enough."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from rest_framework.test import APIClient

from feedback.models import Turn
from tests.builders import stats_req

if TYPE_CHECKING:
    from tests.harness import Actor

ONE_PER_TEN_SECONDS = 0.1


@pytest.mark.parametrize(
    "who, path",
    [
        ("agent", "/api/turns/"),
        ("agent", "/api/routing/"),
        ("agent", "/api/learn/"),
        ("agent", "/api/skills/"),
        ("rev", "/api/plans/"),
        ("rev", "/api/history/"),
        ("boss", "/api/steps/"),
        ("agent", "/api/schema/"),
    ],
)
def test_a_rest_endpoint_answers_429_with_retry_after_once_over_the_limit(
    request: pytest.FixtureRequest, settings: Any, clock: Any, who: str, path: str
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    actor: Actor = request.getfixturevalue(who)
    assert actor.client.get(path, {"format": "json"}).status_code == 200
    response = actor.client.get(path, {"format": "json"})
    assert response.status_code == 429
    body = orjson.loads(response.content)  # the schema's JSON is `application/vnd.oai.openapi+json`
    assert (body["type"], body["code"]) == ("learn/error", "rate_limited")
    assert "Retry after" in body["message"]
    assert 1 <= int(response["Retry-After"]) <= 10
    assert body["retry_after"] == int(response["Retry-After"])


def test_a_refused_rest_write_changes_nothing(agent: Actor, settings: Any, clock: Any) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    assert agent.client.get("/api/routing/").status_code == 200
    turns = {
        "turns": [
            {
                "correlation_id": "c1",
                "session_id": "s",
                "component_name": "x",
                "rated_turn": {"prompt": "p", "response": "r", "model": "m"},
            }
        ]
    }
    response = agent.client.post(
        "/api/turns/", data=orjson.dumps(turns), content_type="application/json"
    )
    assert response.status_code == 429
    assert not Turn.objects.exists()


def test_after_retry_after_seconds_the_next_request_is_served(
    agent: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    agent.client.get("/api/routing/")
    refused = agent.client.get("/api/routing/")
    wait = int(refused["Retry-After"])
    clock.shift(wait - 1)
    assert agent.client.get("/api/routing/").status_code == 429
    clock.shift(1)
    assert agent.client.get("/api/routing/").status_code == 200


def test_rest_and_learn_messages_share_one_count_per_principal(
    agent: Actor, env: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    assert agent.client.get("/api/routing/").status_code == 200
    assert agent.learn(stats_req()).status_code == 429
    assert env.learn(stats_req()).status_code == 200
    assert env.client.get("/api/routing/").status_code == 429


def test_a_learn_post_is_counted_once(agent: Actor, settings: Any, clock: Any) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 2  # two a second
    assert agent.learn(stats_req()).status_code == 200
    assert agent.learn(stats_req()).status_code == 200
    assert agent.learn(stats_req()).status_code == 429


def test_requests_without_a_principal_are_limited_by_client_address(
    db: None, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    client = APIClient()
    assert client.get("/api/schema/", REMOTE_ADDR="192.0.2.1").status_code == 200
    refused = client.get("/api/schema/", {"format": "json"}, REMOTE_ADDR="192.0.2.1")
    assert refused.status_code == 429
    assert orjson.loads(refused.content)["code"] == "rate_limited"
    assert client.get("/api/schema/", REMOTE_ADDR="192.0.2.2").status_code == 200


def test_a_rate_limit_of_zero_turns_limits_off(agent: Actor, settings: Any, clock: Any) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 0
    for _ in range(5):
        assert agent.client.get("/api/routing/").status_code == 200


def test_the_error_schema_documents_retry_after_as_an_optional_number(db: None) -> None:
    document = APIClient().get("/api/schema/", {"format": "json"}).json()
    envelope = document["components"]["schemas"]["LearnErrorEnvelope"]
    assert envelope["properties"]["retry_after"]["type"] == "integer"
    assert "retry_after" not in envelope.get("required", [])
