"""The session id is not a credential on its own: its secret part opens the session, a session
bound by a bearer header needs that header, and A2E's own messages are parsed as strictly as
learn/*: no repeated key, no NUL."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from tests.builders import stats_req
from tests.learnportal.a2e.client import A2ESession, handshake, message
from tests.learnportal.a2e.test_transport import a2e_error, answers

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.harness import Actor

    Connect = Callable[..., A2ESession]


def forged(session: A2ESession, session_id: str, **headers: str) -> A2ESession:
    """Another client that presents `session_id` for the session, with `headers`."""
    other = A2ESession(session.base_url, session_id=session_id)
    other.http.headers.update(headers)
    other.headers = headers
    return other


@pytest.mark.parametrize("presented", ["public", "wrong secret", "no secret"])
def test_the_public_id_alone_opens_no_session(
    connect: Connect, agent: Actor, presented: str
) -> None:
    session = connect(agent.token)
    public, _, secret = session.session_id.partition(".")
    assert public and secret
    session_id = {
        "public": public,
        "wrong secret": f"{public}.{'A' * len(secret)}",
        "no secret": f"{public}.",
    }[presented]
    thief = forged(session, session_id)
    assert thief.post(stats_req()).status_code == 404
    assert (
        httpx.get(f"{session.base_url}/stream", headers={"X-Session-Id": session_id}).status_code
        == 404
    )
    request = message("ping")
    assert session.rpc(request)["req_id"] == request["id"]  # the owner's stream is still its own


def test_a_session_bound_by_a_header_needs_it_on_send_and_stream(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token, via="header")
    thief = forged(session, session.session_id)
    response = thief.post(stats_req())
    assert (response.status_code, response.json()["code"]) == (401, "unauthenticated")
    stream = httpx.get(f"{session.base_url}/stream", headers={"X-Session-Id": session.session_id})
    assert stream.status_code == 401
    answers(session.rpc(request := stats_req()), request)


def test_a_session_bound_by_its_handshake_is_opened_by_its_id_alone(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)  # the SDK's way: auth_token, then only X-Session-Id
    assert "Authorization" not in session.http.headers
    answers(session.rpc(request := stats_req()), request)


@pytest.mark.parametrize(
    "body",
    [
        b'{"type": "ping", "id": "a", "id": "b"}',
        b'{"type": "ping", "id": "a\\u0000"}',
        b'{"type": "shutdown", "type": "shutdown"}',
    ],
)
def test_a_base_message_with_a_repeated_key_or_nul_is_invalid(
    connect: Connect, agent: Actor, body: bytes
) -> None:
    session = connect(agent.token)
    session.send(body)
    assert session.stream is not None
    reply = a2e_error(session.stream.next() or {}, "invalid")
    assert reply["message"]
    request = message("ping")  # the session lives on, and was not shut down
    assert session.rpc(request)["type"] == "pong"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("agent_id", "agent\u0000"),
        ("auth_token", "tok\u0000en"),
        ("agent_caps", ["lea\u0000rning"]),
    ],
)
def test_a_handshake_with_nul_is_invalid_naming_the_field(
    a2e_url: str, agent: Actor, field: str, value: object
) -> None:
    session = A2ESession(a2e_url).open()
    session.connect()
    reply = a2e_error(session.rpc({**handshake(agent.token), field: value}), "invalid")
    assert reply["detail"]["details"][0]["loc"][0] == field
    assert session.rpc(handshake(agent.token))["ok"] is True  # nothing was bound by the first
    session.close()


def test_a_handshake_with_a_repeated_key_is_invalid(a2e_url: str, agent: Actor) -> None:
    session = A2ESession(a2e_url).open()
    session.connect()
    body = b'{"type": "handshake/req", "id": "h", "auth_token": "%s", "auth_token": "x"}'
    session.send(body % agent.token.encode())
    reply = a2e_error(session.stream.next() or {}, "invalid")  # type: ignore[union-attr]
    assert reply["req_id"] == "h"
    assert "duplicate" in reply["message"].lower() or "repeat" in reply["message"].lower()
    session.close()
