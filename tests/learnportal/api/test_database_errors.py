"""A database or Redis error means one thing to a client, whether it met it over learn/*, REST or
a WebSocket: a race on the same ids is a `conflict`, anything else the database refuses, and
Redis unreachable, is `unavailable` with a Retry-After. Never a 500, and a socket answers on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
import redis.exceptions
from asgiref.sync import async_to_sync
from django.db import DataError, IntegrityError, OperationalError

from learnportal import dispatch
from tests.builders import stats_req
from tests.harness import ws_exchange

if TYPE_CHECKING:
    from tests.harness import Actor

TURNS = {
    "turns": [{"correlation_id": "t", "rated_turn": {"prompt": "p", "response": "r", "model": "m"}}]
}
ERRORS = [
    (IntegrityError("duplicate key"), 409, "conflict", None),
    (OperationalError("database is locked"), 503, "unavailable", "1"),
    (DataError("value too long"), 503, "unavailable", "1"),
    (redis.exceptions.ConnectionError("Connection refused"), 503, "unavailable", "1"),
    (redis.exceptions.TimeoutError("Timeout reading from socket"), 503, "unavailable", "1"),
]


def _raising(error: Exception) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    return fail


def _over_learn(agent: Actor, monkeypatch: pytest.MonkeyPatch, error: Exception) -> Any:
    monkeypatch.setitem(dispatch.HANDLERS, "learn/stats/req", _raising(error))
    return agent.learn(stats_req())


def _over_rest(agent: Actor, monkeypatch: pytest.MonkeyPatch, error: Exception) -> Any:
    monkeypatch.setattr("feedback.api.turns_submit", _raising(error))
    return agent.client.post("/api/turns/", orjson.dumps(TURNS), content_type="application/json")


@pytest.mark.parametrize(("error", "status", "code", "retry_after"), ERRORS)
@pytest.mark.parametrize("send", [_over_learn, _over_rest], ids=["learn", "rest"])
def test_a_database_error_answers_its_code_on_every_transport(
    agent: Actor,
    monkeypatch: pytest.MonkeyPatch,
    send: Any,
    error: Exception,
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
    error: Exception,
    status: int,
    code: str,
    retry_after: str | None,
) -> None:
    learn = _over_learn(agent, monkeypatch, error).json()
    rest = _over_rest(agent, monkeypatch, error).json()

    assert (learn["code"], learn["message"]) == (rest["code"], rest["message"])


@pytest.mark.django_db(transaction=True)
def test_a_socket_answers_a_frame_that_met_redis_down_and_then_the_next(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    stats = dispatch.HANDLERS["learn/stats/req"]
    calls = iter([_raising(redis.exceptions.ConnectionError("Connection refused")), stats])
    monkeypatch.setitem(dispatch.HANDLERS, "learn/stats/req", lambda *a: next(calls)(*a))
    down, back = async_to_sync(ws_exchange)(agent.token, [stats_req(), stats_req()])
    assert (down["code"], down["retry_after"]) == ("unavailable", 1)
    assert back["type"] == "learn/stats/resp"


@pytest.mark.django_db(transaction=True)
def test_a_defect_inside_a_handler_is_an_envelope_on_every_transport_and_a_socket_answers_on(
    agent: Actor, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    stats = dispatch.HANDLERS["learn/stats/req"]
    calls = iter([_raising(ZeroDivisionError("a bug")), _raising(KeyError("a bug")), stats])
    monkeypatch.setitem(dispatch.HANDLERS, "learn/stats/req", lambda *a: next(calls)(*a))
    request = stats_req()
    over_http = agent.learn(orjson.dumps(request))
    assert over_http.status_code == 503
    assert (over_http.json()["code"], over_http.json()["req_id"]) == ("unavailable", request["id"])
    assert int(over_http["Retry-After"]) >= 1
    failed, answered = async_to_sync(ws_exchange)(agent.token, [stats_req(), stats_req()])
    assert (failed["type"], failed["code"]) == ("learn/error", "unavailable")
    assert answered["type"] == "learn/stats/resp"
    assert "learn/* request failed inside the host" in caplog.text
