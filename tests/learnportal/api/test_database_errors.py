"""A database error means one thing to a client, whether it met it over learn/* or REST: a race
on the same ids is a `conflict`, anything else the database refuses is `unavailable` with a
Retry-After. Never a 500."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.db import DatabaseError, DataError, IntegrityError, OperationalError

from learnportal import dispatch
from tests.builders import stats_req

if TYPE_CHECKING:
    from tests.harness import Actor

TURNS = {
    "turns": [{"correlation_id": "t", "rated_turn": {"prompt": "p", "response": "r", "model": "m"}}]
}
ERRORS = [
    (IntegrityError("duplicate key"), 409, "conflict", None),
    (OperationalError("database is locked"), 503, "unavailable", "1"),
    (DataError("value too long"), 503, "unavailable", "1"),
]


def _raising(error: DatabaseError) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    return fail


def _over_learn(agent: Actor, monkeypatch: pytest.MonkeyPatch, error: DatabaseError) -> Any:
    monkeypatch.setitem(dispatch.HANDLERS, "learn/stats/req", _raising(error))
    return agent.learn(stats_req())


def _over_rest(agent: Actor, monkeypatch: pytest.MonkeyPatch, error: DatabaseError) -> Any:
    monkeypatch.setattr("feedback.api.turns_submit", _raising(error))
    return agent.client.post("/api/turns/", orjson.dumps(TURNS), content_type="application/json")


@pytest.mark.parametrize(("error", "status", "code", "retry_after"), ERRORS)
@pytest.mark.parametrize("send", [_over_learn, _over_rest], ids=["learn", "rest"])
def test_a_database_error_answers_its_code_on_every_transport(
    agent: Actor,
    monkeypatch: pytest.MonkeyPatch,
    send: Any,
    error: DatabaseError,
    status: int,
    code: str,
    retry_after: str | None,
) -> None:
    response = send(agent, monkeypatch, error)

    assert response.status_code == status
    assert response.json()["code"] == code
    assert response.get("Retry-After") == retry_after


@pytest.mark.parametrize(("error", "status", "code", "retry_after"), ERRORS)
def test_learn_and_rest_say_the_same_of_the_same_database_error(
    agent: Actor,
    monkeypatch: pytest.MonkeyPatch,
    error: DatabaseError,
    status: int,
    code: str,
    retry_after: str | None,
) -> None:
    learn = _over_learn(agent, monkeypatch, error).json()
    rest = _over_rest(agent, monkeypatch, error).json()

    assert (learn["code"], learn["message"]) == (rest["code"], rest["message"])
