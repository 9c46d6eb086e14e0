"""learn/* is limited once, in dispatch, so that HTTP and WebSocket share one count; over
WebSocket, where there is no header, the error envelope itself says when to retry."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.db import OperationalError

from tests.builders import feedback, feedback_req, stats_req, stored
from tests.harness import WS_TIMEOUT, Actor, Send, ws_communicator

ONE_PER_TEN_SECONDS = 0.1
# The consumer reaches the database from another thread, outside a test's transaction.
over_websocket = pytest.mark.django_db(transaction=True)


async def _conversation(token: str, clock: Any, frames: list[Any]) -> list[dict[str, Any]]:
    """On one connection, send each frame and read its reply before the next; a number in
    `frames` moves the clock on by that many seconds instead."""
    communicator = ws_communicator(token=token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    try:
        replies = []
        for frame in frames:
            if isinstance(frame, int):
                clock.shift(frame)
                continue
            await communicator.send_json_to(frame)
            replies.append(await communicator.receive_json_from(timeout=WS_TIMEOUT))
        return replies
    finally:
        await communicator.disconnect()


@over_websocket
def test_rest_and_learn_over_http_and_websocket_share_one_count(
    agent: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 2  # two a second
    assert agent.client.get("/api/routing/").status_code == 200
    assert agent.learn(stats_req()).status_code == 200
    (reply,) = async_to_sync(_conversation)(agent.token, clock, [stats_req()])
    assert (reply["type"], reply["code"]) == ("learn/error", "rate_limited")


@over_websocket
def test_a_websocket_rate_limited_frame_says_when_to_retry_and_the_socket_stays_open(
    agent: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    refused = feedback_req(feedback(component_name="c"))
    served, limited = async_to_sync(_conversation)(agent.token, clock, [stats_req(), refused])
    assert served["type"] == "learn/stats/resp"
    assert (limited["code"], limited["req_id"]) == ("rate_limited", refused["id"])
    assert isinstance(limited["retry_after"], int)
    assert 1 <= limited["retry_after"] <= 10
    assert stored()["feedback"] == 0


@over_websocket
def test_a_websocket_client_that_waits_retry_after_is_served_on_the_same_socket(
    agent: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    assert agent.learn(stats_req()).status_code == 200
    wait = agent.learn(stats_req()).json()["retry_after"]
    limited, served = async_to_sync(_conversation)(
        agent.token, clock, [stats_req(), wait, stats_req()]
    )
    assert limited["code"] == "rate_limited"
    assert served["type"] == "learn/stats/resp"


def _database_is_locked(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("database is locked")


def test_an_unavailable_error_carries_retry_after_on_both_transports(
    transport: Send, agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("feedback.handlers.component_records", _database_is_locked)
    status, reply = transport(agent, stats_req())
    assert (status, reply["code"]) == (503, "unavailable")
    assert reply["retry_after"] == 1


def test_other_errors_have_no_retry_after(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, feedback_req(feedback(score=2)))
    assert status == 400
    assert "retry_after" not in reply
