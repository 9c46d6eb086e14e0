"""Helpers for the refinement lifecycle tests: one `send` over HTTP or WebSocket, and builders.

`transport` is parametrized here (not a fixture param) so that the WebSocket case reliably gets
a transactional database: the consumer reaches the database from another thread. Tests that take
`transport` must not carry their own non-transactional `django_db` mark.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from learnportal.protocol.errors import HTTP_STATUS, ErrorCode
from refinement import store
from refinement.paths import weight_path
from tests.conftest import Actor

Send = Callable[[Actor, dict[str, Any]], tuple[int, dict[str, Any]]]
WS_TIMEOUT = 30
_ids = itertools.count(1)


def next_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


def http_send(actor: Actor, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = actor.learn(body)
    return response.status_code, response.json()


async def ws_roundtrip(token: str, body: dict[str, Any]) -> dict[str, Any]:
    from learnportal.asgi import application

    communicator = WebsocketCommunicator(
        application, "/ws/learn/", headers=[(b"authorization", f"Bearer {token}".encode())]
    )
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    try:
        await communicator.send_to(text_data=orjson.dumps(body).decode())
        return await communicator.receive_json_from(timeout=WS_TIMEOUT)
    finally:
        await communicator.disconnect()


def ws_status(reply: dict[str, Any]) -> int:
    if reply.get("type") == "learn/error":
        return HTTP_STATUS[ErrorCode(reply["code"])]
    return 200


def ws_send(actor: Actor, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    assert actor.raw_token
    reply = async_to_sync(ws_roundtrip)(actor.raw_token, body)
    return ws_status(reply), reply


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "transport" in metafunc.fixturenames:
        metafunc.parametrize(
            "transport",
            [
                pytest.param(http_send, id="http"),
                pytest.param(ws_send, id="ws", marks=pytest.mark.django_db(transaction=True)),
            ],
        )


# --- request builders -------------------------------------------------------------------------


def adapt_req(strategy: str = "ppo", component_name: str = "") -> dict[str, Any]:
    return {
        "type": "learn/adapt/req",
        "id": next_id("la"),
        "strategy": strategy,
        "component_name": component_name,
    }


def plan_req(component_name: str = "", scope: str = "local") -> dict[str, Any]:
    return {
        "type": "learn/refinement/plan/req",
        "id": next_id("lp"),
        "component_name": component_name,
        "scope": scope,
    }


def review_req(proposal: dict[str, Any]) -> dict[str, Any]:
    return {"type": "learn/refinement/review/req", "id": next_id("lr"), "proposal": proposal}


def apply_req(proposal: dict[str, Any]) -> dict[str, Any]:
    return {"type": "learn/refinement/apply/req", "id": next_id("lx"), "proposal": proposal}


def rollback_req(refinement_id: str) -> dict[str, Any]:
    return {
        "type": "learn/refinement/rollback/req",
        "id": next_id("lb"),
        "refinement_id": refinement_id,
    }


def history_req() -> dict[str, Any]:
    return {"type": "learn/refinement/history/req", "id": next_id("lh")}


def weight_proposal(component: str, old: Any, new: Any, **extra: Any) -> dict[str, Any]:
    return {
        "target": "router_weight",
        "op": "update",
        "path": weight_path(component),
        "old_value": old,
        "new_value": new,
        **extra,
    }


def file_proposal(path: str, old: Any, new: Any, op: str | None = None) -> dict[str, Any]:
    if op is None:
        op = "create" if old is None else ("delete" if new is None else "update")
    return {"target": "skill_file", "op": op, "path": path, "old_value": old, "new_value": new}


# --- data -------------------------------------------------------------------------------------


def calls(
    actor: Actor, component: str, n: int, *, reward: float, success: bool | None = None
) -> None:
    """Store `n` calls of a component through learn/experience/req (over HTTP)."""
    experiences = []
    for i in range(n):
        action: dict[str, Any] = {"component_name": component, "duration_ms": 100.0 + i}
        if success is not None:
            action["success"] = success
        experiences.append({"experience_id": next_id("exp"), "action": action, "reward": reward})
    response = actor.learn(
        {"type": "learn/experience/req", "id": next_id("le"), "experiences": experiences}
    )
    assert response.status_code == 200, response.json()
    assert response.json()["stored"] == n


def corrections(actor: Actor, component: str, texts: list[str]) -> None:
    """Corrective feedback for a component through learn/feedback/req (source self)."""
    feedbacks = [
        {
            "feedback_id": next_id("fb"),
            "polarity": "corrective",
            "score": -0.5,
            "correction": text,
            "source": "self",
            "component_name": component,
        }
        for text in texts
    ]
    response = actor.learn(
        {"type": "learn/feedback/req", "id": next_id("lf"), "feedbacks": feedbacks}
    )
    assert response.status_code == 200, response.json()
    assert response.json()["recorded"] == len(texts)


def two_arms(actor: Actor) -> None:
    """`alpha` does well and `beta` badly: every strategy prefers alpha."""
    calls(actor, "alpha", 30, reward=0.9, success=True)
    calls(actor, "beta", 30, reward=-0.8, success=False)


@pytest.fixture
def weighted(db: None) -> None:
    """alpha and beta already weighted 0.5 before any call is recorded.

    Works around the behaviour-probability bug for fresh components (see test_adapt.py), so that
    PPO, the planner's default strategy, has data to learn from.
    """
    from refinement.models import StoreValue

    for name in ("alpha", "beta"):
        StoreValue.objects.create(path=weight_path(name), value=0.5, version=1)


def weight(component: str) -> float | None:
    return store.routing_weights().get(component)


def ok(result: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    status, body = result
    assert status == 200, body
    return body


def refused(result: tuple[int, dict[str, Any]], status: int, code: str) -> dict[str, Any]:
    got, body = result
    assert (got, body.get("code")) == (status, code), body
    assert body["type"] == "learn/error"
    return body
