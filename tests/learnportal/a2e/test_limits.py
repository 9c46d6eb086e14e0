"""No one, with or without a credential, makes /a2e keep more than its bounds: sessions per
principal and per client address, new sessions per second, replies per outbox in count and
bytes; every 429 says how long to wait."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from learnportal.a2e.sessions import UNBOUND_BODY_BYTES
from tests.learnportal.a2e.client import A2ESession, handshake, message

if TYPE_CHECKING:
    from tests.harness import Actor


def retry_after(response: httpx.Response) -> int:
    assert response.status_code == 429, response.text
    assert response.json()["code"] == "rate_limited"
    return int(response.headers["Retry-After"])


def test_a_client_address_holds_at_most_its_limit_of_unbound_sessions(
    a2e_url: str, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_MAX_UNBOUND_SESSIONS = 3
    answers = [httpx.post(f"{a2e_url}/session") for _ in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert retry_after(answers[3]) >= 1


def test_a_handshake_frees_its_addresss_place_and_counts_under_its_principal(
    a2e_url: str, agent: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_MAX_UNBOUND_SESSIONS = 1
    settings.LEARNPORTAL_A2E_MAX_SESSIONS = 2
    opened = []
    for _ in range(2):
        session = A2ESession(a2e_url).open()  # the address's one place, each in turn
        opened.append(session)
        session.connect()
        assert session.rpc(handshake(agent.token))["ok"] is True
    third = A2ESession(a2e_url).open()
    third.connect()
    reply = third.rpc(handshake(agent.token))
    assert (reply["ok"], reply["accepted_caps"]) == (False, [])
    assert "as many A2E sessions as it may" in reply["reason"]
    assert retry_after(httpx.post(f"{a2e_url}/session", headers=bearer(agent))) >= 1
    opened[0].send(message("shutdown"))  # one ends: room again
    assert httpx.post(f"{a2e_url}/session", headers=bearer(agent)).status_code == 200
    for session in [*opened, third]:
        session.close()


def bearer(actor: Actor) -> dict[str, str]:
    return {"Authorization": f"Bearer {actor.token}"}


def test_new_sessions_with_a_token_are_rate_limited_under_its_principal(
    a2e_url: str, agent: Actor, env: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 1e-6  # one request in a window of 11 days
    assert httpx.post(f"{a2e_url}/session", headers=bearer(agent)).status_code == 200
    assert retry_after(httpx.post(f"{a2e_url}/session", headers=bearer(agent))) >= 1
    # Another principal, and the address without a credential, have counts of their own.
    assert httpx.post(f"{a2e_url}/session", headers=bearer(env)).status_code == 200
    assert httpx.post(f"{a2e_url}/session").status_code == 200


def test_an_outbox_full_by_bytes_refuses_with_a_wait(
    a2e_url: str, agent: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_MAX_QUEUED_BYTES = 64 * 1024
    session = A2ESession(a2e_url, agent.token).open()
    session.send(handshake(""))
    big = {**message("ping"), "padding": "p" * 1000}
    refusals = []
    for _ in range(200):  # replies of ~400 bytes: ~160 fill 64 KiB
        response = session.post({**big, "id": "i" * 200})
        if response.status_code != 200:
            refusals.append(response)
            break
    assert refusals, "the outbox took 200 replies"
    assert retry_after(refusals[0]) >= 1
    session.close()


def test_messages_of_an_unbound_session_count_under_its_address(
    a2e_url: str, settings: Any
) -> None:
    session = A2ESession(a2e_url).open()
    session.connect()
    settings.LEARNPORTAL_RATE_LIMIT = 1e-6
    first = session.rpc(message("learn/stats/req"))
    assert first["code"] == "unauthenticated"
    second = session.rpc(message("learn/stats/req"))
    assert second["code"] == "rate_limited"
    assert second["detail"]["retry_after"] >= 1
    session.close()


def test_requests_without_a_valid_session_or_credential_count_under_their_address(
    a2e_url: str, settings: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 1e-6
    unknown = {"X-Session-Id": "0" * 32 + ".guess"}
    assert httpx.post(f"{a2e_url}/send", content=b"{}", headers=unknown).status_code == 404
    assert retry_after(httpx.post(f"{a2e_url}/send", content=b"{}", headers=unknown)) >= 1
    assert retry_after(httpx.get(f"{a2e_url}/stream", headers=unknown)) >= 1
    bad = {"Authorization": "Bearer not-a-token"}
    assert retry_after(httpx.post(f"{a2e_url}/session", headers=bad)) >= 1


def test_a_session_no_credential_binds_takes_only_a_small_body(a2e_url: str, agent: Actor) -> None:
    unbound = A2ESession(a2e_url).open()
    too_big = b" " * (UNBOUND_BODY_BYTES + 1)
    refused = unbound.post(too_big)
    assert (refused.status_code, refused.json()["code"]) == (413, "too_large")
    assert httpx.post(f"{a2e_url}/session", content=too_big).status_code == 413
    unbound.connect()
    assert unbound.rpc(handshake(agent.token))["ok"] is True  # bound now: the usual limit
    assert unbound.post(too_big).status_code == 200
    unbound.close()
