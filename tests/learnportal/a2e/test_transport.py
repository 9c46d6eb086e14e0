"""The A2E SDK's HTTP transport at /a2e, driven over a live server by a client of the contract."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pytest
from django.utils import timezone

from core.accounts import services
from core.accounts.credentials import PRINCIPAL_TTL, Credential, principals
from core.accounts.models import ApiToken, hash_token
from feedback.models import Experience
from learnportal.a2e import host
from learnportal_protocol import ALL_MESSAGE_TYPES, RESPONSE_MODELS
from refinement.models import Refinement, RefinementStatus
from tests.builders import (
    adapt_req,
    apply_req,
    experience,
    experience_req,
    feedback,
    feedback_req,
    history_req,
    plan_req,
    review_req,
    rollback_req,
    stats_req,
    weight_proposal,
)
from tests.harness import human_actor
from tests.learnportal.a2e.client import A2ESession, handshake, message
from tests.protocol.wire_examples import REQUEST_EXAMPLES

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.harness import Actor

    Connect = Callable[..., A2ESession]

ERROR_KEYS = {
    "type", "id", "version", "ts", "req_id", "code", "message", "detail", "retryable",
    "capability_name",
}  # fmt: skip


def answers(reply: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """`reply` is the response envelope of `request`, as over /api/learn/; returned for reading."""
    assert reply["type"] == request["type"].removesuffix("/req") + "/resp", reply
    assert reply["req_id"] == request["id"]
    RESPONSE_MODELS[reply["type"]].model_validate(reply)
    return reply


def a2e_error(reply: dict[str, Any], code: str) -> dict[str, Any]:
    assert set(reply) == ERROR_KEYS, reply
    assert (reply["type"], reply["code"], reply["capability_name"]) == ("error", code, "learning")
    assert reply["retryable"] is (code in {"rate_limited", "unavailable"})
    return reply


# --- session, handshake, ping, shutdown ------------------------------------------------------


def test_a_session_answers_its_id(a2e_url: str) -> None:
    response = httpx.post(f"{a2e_url}/session")
    assert response.status_code == 200
    assert set(response.json()) == {"session_id"}
    assert response.json()["session_id"]


def test_the_handshake_accepts_the_learning_capability_with_its_messages(
    a2e_url: str, agent: Actor, settings: Any
) -> None:
    session = A2ESession(a2e_url).open()
    session.connect()
    request = handshake(agent.token)
    reply = session.rpc(request)
    session.close()
    assert set(reply) == {
        "type", "id", "version", "ts", "req_id", "session_id", "accepted_caps", "max_parallel",
        "ok", "reason",
    }  # fmt: skip
    assert (reply["type"], reply["req_id"], reply["ok"], reply["reason"]) == (
        "handshake/resp", request["id"], True, ""
    )  # fmt: skip
    assert reply["session_id"] == session.session_id
    assert reply["accepted_caps"] == [
        {
            "capability": "learning",
            "enabled": True,
            "metadata": {
                "namespace": "learn/*",
                "plugin": "LearnPlugin",
                "version": "1.0",
                "messages": ALL_MESSAGE_TYPES,
                "max_batch": settings.LEARNPORTAL_MAX_BATCH,
            },
        }
    ]
    assert reply["max_parallel"] >= 1


def test_a_bearer_header_binds_the_session_without_an_auth_token(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token, via="header")
    request = stats_req()
    answers(session.rpc(request), request)


def test_ping_is_answered_by_pong_with_its_req_id(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    request = message("ping")
    reply = session.rpc(request)
    assert (reply["type"], reply["req_id"]) == ("pong", request["id"])


def test_shutdown_ends_the_session_and_its_stream(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    session.send(message("shutdown"))
    assert session.stream is not None and session.stream.next() is None  # the stream ended
    assert session.post(stats_req()).status_code == 404


# --- credentials -------------------------------------------------------------------------------


def test_a_bad_auth_token_is_refused_by_the_handshake_and_the_session_serves_nothing(
    a2e_url: str,
) -> None:
    session = A2ESession(a2e_url).open()
    session.connect()
    request = handshake("not-a-token")
    reply = session.rpc(request)
    assert (reply["type"], reply["ok"], reply["accepted_caps"]) == ("handshake/resp", False, [])
    assert "unknown or has been revoked" in reply["reason"]
    stats = stats_req()
    a2e_error(session.rpc(stats), "unauthenticated")
    session.close()


def test_a_handshake_without_any_credential_is_refused(a2e_url: str) -> None:
    session = A2ESession(a2e_url).open()
    session.connect()
    reply = session.rpc(handshake(""))
    session.close()
    assert reply["ok"] is False
    assert "auth_token" in reply["reason"]


def test_a_bad_bearer_header_is_refused_at_the_session(a2e_url: str) -> None:
    response = httpx.post(f"{a2e_url}/session", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_a_learn_request_before_the_handshake_is_refused(a2e_url: str, agent: Actor) -> None:
    session = A2ESession(a2e_url, agent.token).open()
    session.connect()
    request = stats_req()
    reply = a2e_error(session.rpc(request), "invalid")
    session.close()
    assert reply["req_id"] == request["id"]
    assert "handshake/req first" in reply["message"]


def test_another_credential_may_not_use_a_bound_session(
    connect: Connect, agent: Actor, env: Actor
) -> None:
    session = connect(agent.token)
    response = session.http.post(
        "/send",
        content=b"{}",
        headers={"X-Session-Id": session.session_id, "Authorization": f"Bearer {env.token}"},
    )
    assert response.status_code == 403


def assert_ended_for_its_credential(session: A2ESession) -> None:
    """The session's stream says why it ends, ends, and the session takes nothing more."""
    assert session.stream is not None
    reply = a2e_error(session.stream.next() or {}, "unauthenticated")
    assert (reply["req_id"], reply["message"]) == ("", host.CREDENTIAL_ENDED)
    assert session.stream.next() is None
    assert session.post(stats_req()).status_code == 404


def test_a_revoked_token_ends_an_idle_session_at_once(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    answers(session.rpc(stats := stats_req()), stats)
    services.token_revoke(token=ApiToken.objects.get(name="agent-1"))
    assert_ended_for_its_credential(session)


def test_a_token_revoked_behind_the_hosts_back_ends_its_session_within_the_ttl(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    answers(session.rpc(stats := stats_req()), stats)
    # As another process or a script would: no signal reaches this process.
    ApiToken.objects.filter(name="agent-1").update(revoked_at=timezone.now())
    started = time.monotonic()
    assert_ended_for_its_credential(session)
    assert time.monotonic() - started < 2 * PRINCIPAL_TTL + 1


def test_roles_are_those_of_the_credential(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    request = feedback_req(feedback(source="env"))
    reply = a2e_error(session.rpc(request), "forbidden")
    assert reply["detail"]["details"]


# --- every learn/* message ---------------------------------------------------------------------


def test_every_learn_message_is_answered_with_its_response_envelope(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    for request in (
        feedback_req(feedback(component_name="alpha", source="self")),
        experience_req(experience("alpha"), experience("beta", reward=-0.5)),
        stats_req(),
        adapt_req("ucb1"),
        plan_req(),
        review_req(weight_proposal("gamma", 0.5, 0.55)),
    ):
        answers(session.rpc(request), request)
    apply = apply_req(weight_proposal("gamma", 0.5, 0.55))
    applied = answers(session.rpc(apply), apply)
    assert applied["applied_edits"] == 1, applied
    rollback = rollback_req(applied["refinement_id"])
    assert answers(session.rpc(rollback), rollback)["rolled_back"] is True
    history = history_req()
    assert answers(session.rpc(history), history)["entries"]
    assert Experience.objects.count() == 2
    refinement = Refinement.objects.get(refinement_id=applied["refinement_id"])
    assert refinement.status == RefinementStatus.ROLLED_BACK


def test_the_spec_wire_examples_are_answered_as_over_http(connect: Connect, agent: Actor) -> None:
    user1 = human_actor("user1", "annotator")  # the feedback example's annotator_id
    for type_, text in REQUEST_EXAMPLES.items():
        sender = user1 if type_ == "learn/feedback/req" else agent
        over_http = sender.learn(text.replace('"id":"', '"id":"http-', 1).encode())
        session = connect(sender.token)
        session.send(text)
        assert session.stream is not None
        reply = session.stream.next()
        assert reply is not None
        if over_http.status_code == 200:
            assert reply["type"] == type_.removesuffix("/req") + "/resp", reply
            RESPONSE_MODELS[reply["type"]].model_validate(reply)
        else:
            assert reply["type"] == "error", reply
            assert reply["code"] == over_http.json()["code"]


# --- errors --------------------------------------------------------------------------------------


def test_a_refusal_is_the_a2e_error_message_with_the_learn_error_details(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    request = feedback_req(feedback(score=2))
    reply = a2e_error(session.rpc(request), "invalid")
    assert reply["req_id"] == request["id"]
    assert reply["message"]
    assert reply["detail"]["details"][0]["loc"] == ["feedbacks", 0, "score"]


def test_a_message_that_is_not_json_is_an_invalid_error(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    session.send(b"{oops")
    assert session.stream is not None
    reply = session.stream.next()
    assert reply is not None
    assert a2e_error(reply, "invalid")["req_id"] == ""


def test_an_unknown_type_is_an_unknown_type_error(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    a2e_error(session.rpc(message("tools/invoke")), "unknown_type")


def test_rate_limited_is_retryable_with_its_retry_time(
    connect: Connect, agent: Actor, settings: Any
) -> None:
    session = connect(agent.token)
    settings.LEARNPORTAL_RATE_LIMIT = 1e-6  # one request in a window of 11 days
    answers(session.rpc(first := stats_req()), first)
    reply = a2e_error(session.rpc(stats_req()), "rate_limited")
    assert reply["retryable"] is True
    assert reply["detail"]["retry_after"] > 0
    a2e_error(session.rpc(message("ping")), "rate_limited")  # base messages count too


# --- the transport's own limits ------------------------------------------------------------------


def test_an_unknown_session_is_404_on_send_and_stream(a2e_url: str) -> None:
    unknown = {"X-Session-Id": uuid.uuid4().hex}
    assert httpx.post(f"{a2e_url}/send", content=b"{}", headers=unknown).status_code == 404
    assert httpx.get(f"{a2e_url}/stream", headers=unknown).status_code == 404
    assert httpx.post(f"{a2e_url}/send", content=b"{}").status_code == 404


def test_a_body_over_the_size_limit_is_refused_on_the_stream_and_the_session_goes_on(
    connect: Connect, agent: Actor, settings: Any
) -> None:
    session = connect(agent.token)
    settings.LEARNPORTAL_MAX_BODY_BYTES = 1024
    request = experience_req(experience("c", state={"text": "x" * 2048}))
    response = session.post(request)
    assert (response.status_code, response.json()) == (200, {"ok": True})  # no status to die of
    assert session.stream is not None
    refusal = session.stream.next()
    assert refusal is not None
    assert a2e_error(refusal, "too_large")["req_id"] == request["id"]
    assert session.rpc(stats_req())["type"] == "learn/stats/resp"  # the session goes on


def test_a_session_whose_stream_is_not_read_refuses_more_than_its_outbox_holds(
    a2e_url: str, agent: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_A2E_MAX_QUEUED = 2
    session = A2ESession(a2e_url, agent.token).open()
    session.send(handshake(""))
    session.send(message("ping"))
    response = session.post(message("ping"))
    assert response.status_code == 429
    stream = session.connect()
    assert [stream.next()["type"], stream.next()["type"]] == ["handshake/resp", "pong"]  # type: ignore[index]
    session.send(message("ping"))  # read: room again
    session.close()


# --- streams ---------------------------------------------------------------------------------------


def test_the_stream_is_server_sent_events_with_keep_alive_comments(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    assert session.stream is not None and session.stream.headers is not None
    assert session.stream.headers["content-type"].startswith("text/event-stream")
    session.stream.comments.get(timeout=30)
    session.stream.comments.get(timeout=30)  # more than the first: the stream is kept open


def test_a_stream_reconnecting_gets_every_reply_once_in_order(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    pings = [message("ping") for _ in range(6)]
    for ping in pings[:2]:
        session.rpc(ping)
    assert session.stream is not None
    session.stream.close()
    for ping in pings[2:5]:
        session.send(ping)  # no stream open: they wait in the session's outbox
    stream = session.connect()
    replies = [stream.next() for _ in range(3)]
    assert [r["req_id"] for r in replies] == [p["id"] for p in pings[2:5]]  # type: ignore[index]
    assert session.rpc(pings[5])["req_id"] == pings[5]["id"]  # nothing repeated before it


def test_a_newer_stream_of_a_session_replaces_the_older(connect: Connect, agent: Actor) -> None:
    session = connect(agent.token)
    older = session.stream
    assert older is not None
    newer = session.connect()
    assert older.next() is None  # the older one ended
    request = message("ping")
    session.send(request)
    assert newer.next()["req_id"] == request["id"]  # type: ignore[index]
    older.close()


def test_two_sessions_at_once_each_get_their_own_replies(
    connect: Connect, agent: Actor, env: Actor
) -> None:
    first, second = connect(agent.token), connect(env.token)
    requests = [stats_req() for _ in range(4)]
    first.send(requests[0])
    second.send(requests[1])
    first.send(requests[2])
    second.send(requests[3])
    assert first.stream is not None and second.stream is not None
    assert [first.stream.next()["req_id"] for _ in range(2)] == [  # type: ignore[index]
        requests[0]["id"], requests[2]["id"]
    ]  # fmt: skip
    assert [second.stream.next()["req_id"] for _ in range(2)] == [  # type: ignore[index]
        requests[1]["id"], requests[3]["id"]
    ]  # fmt: skip
    # an environment may send env feedback, an agent may not: each session is its principal
    a2e_error(first.rpc(feedback_req(feedback(source="env"))), "forbidden")
    answers(second.rpc(env_fb := feedback_req(feedback(source="env"))), env_fb)


@pytest.mark.parametrize("path", ["/session", "/send"])
def test_the_wrong_method_is_refused(a2e_url: str, path: str) -> None:
    assert httpx.get(f"{a2e_url}{path}").status_code == 405


def test_a_session_ended_while_its_stream_was_away_still_delivers_the_refusal(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    assert session.stream is not None
    # Away means the server has let the stream go: until then its watch would end the session
    # at the revocation, and the send would find it ended (as it should). The watch begins once
    # the stream has written what it had: closed before, the stream might begin it after.
    credential = Credential("token", hash_token(agent.token))
    deadline = time.monotonic() + 5
    while not principals.watched(credential) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert principals.watched(credential)
    session.stream.close()
    while principals.watched(credential) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not principals.watched(credential)
    services.token_revoke(token=ApiToken.objects.get(name="agent-1"))
    request = stats_req()
    session.send(request)  # refused, and the session ends
    stream = session.connect()
    reply = stream.next()
    assert reply is not None
    assert a2e_error(reply, "unauthenticated")["req_id"] == request["id"]
    assert stream.next() is None


def test_a_malformed_handshake_is_an_invalid_error_naming_the_field(a2e_url: str) -> None:
    session = A2ESession(a2e_url).open()
    session.connect()
    request = {**handshake(""), "agent_caps": "learning"}
    reply = a2e_error(session.rpc(request), "invalid")
    session.close()
    assert reply["detail"]["details"][0]["loc"] == ["agent_caps"]


def test_a_host_outside_allowed_hosts_is_refused(a2e_url: str) -> None:
    response = httpx.post(f"{a2e_url}/session", headers={"Host": "evil.example"})
    assert response.status_code == 400


def test_an_unreachable_session_store_is_unavailable_never_a_crash(
    a2e_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from learnportal.a2e import sessions
    from learnportal.a2e.redisstore import RedisStore

    monkeypatch.setattr(sessions, "_store", RedisStore("redis://127.0.0.1:1/0"))
    for response in (
        httpx.post(f"{a2e_url}/session"),
        httpx.post(f"{a2e_url}/send", content=b"{}", headers={"X-Session-Id": "a" * 32 + ".s"}),
        httpx.get(f"{a2e_url}/stream", headers={"X-Session-Id": "a" * 32 + ".s"}),
    ):
        assert response.status_code == 503, response.text
        assert response.json()["code"] == "unavailable"


def test_an_integer_wider_than_64_bits_in_a_number_field_is_an_invalid_error(
    connect: Connect, agent: Actor
) -> None:
    session = connect(agent.token)
    request = experience_req(experience(reward=0.5))
    session.send(orjson.dumps(request).replace(b'"reward":0.5', b'"reward":' + str(2**64).encode()))
    assert session.stream is not None
    reply = session.stream.next()
    assert reply is not None
    assert a2e_error(reply, "invalid")["req_id"] == request["id"]
    assert reply["detail"]["details"][0]["loc"] == ["experiences", 0, "reward"]
    later = stats_req()
    answers(session.rpc(later), later)
