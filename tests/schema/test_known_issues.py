"""Requests that schemathesis found the host answering wrongly, left to the protocol's strict
parsing (the lead's change to learnportal/protocol). Each is a strict xfail: once the change
lands it passes, and then this mark and its entry in tests/schema/hooks.py KNOWN_ISSUES go."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.conftest import Actor

LEAD = "learnportal.protocol strict parsing (lead): remove with its entry in hooks.KNOWN_ISSUES"


def _queue(agent: Actor, **rated_turn: Any) -> Any:
    turn = {"prompt": "p", "response": "r", "model": "m", **rated_turn}
    body = {"turns": [{"correlation_id": "c-1", "rated_turn": turn}]}
    return agent.client.post("/api/turns/", orjson.dumps(body), content_type="application/json")


def _refused_naming(response: Any, field: str) -> None:
    assert response.status_code == 400
    assert field in response.json()["details"][0]["loc"]


@pytest.mark.xfail(strict=True, raises=(AssertionError, TypeError), reason=LEAD)
def test_an_integer_wider_than_64_bits_in_free_json_is_invalid(agent: Actor) -> None:
    # Today: orjson refuses to store it, a 500 (TypeError: Integer exceeds 64-bit range).
    _refused_naming(_queue(agent, environment={"n": 2**64}), "environment")


@pytest.mark.xfail(strict=True, reason=LEAD)
def test_a_nul_character_in_a_turn_is_invalid(agent: Actor) -> None:
    # Today: stored on SQLite, a 503 on PostgreSQL (text cannot hold NUL).
    _refused_naming(_queue(agent, prompt="a\x00b"), "prompt")


@pytest.mark.xfail(strict=True, reason=LEAD)
def test_a_model_name_longer_than_its_column_is_invalid(agent: Actor) -> None:
    # Today: stored on SQLite, a 503 on PostgreSQL (varchar(200)).
    _refused_naming(_queue(agent, model="m" * 201), "model")


@pytest.mark.xfail(strict=True, reason=LEAD)
def test_a_plan_scope_longer_than_its_column_is_invalid(agent: Actor) -> None:
    # Today: stored on SQLite, a 503 on PostgreSQL (varchar(64)).
    response = agent.learn({"type": "learn/refinement/plan/req", "id": "p1", "scope": "s" * 65})
    _refused_naming(response, "scope")
