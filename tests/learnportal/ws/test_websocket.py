"""`/ws/learn/`: the handshake, bad frames, pipelining and session cookies (origins: test_origin)."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from channels.db import database_sync_to_async
from django.http import HttpRequest
from django.test import Client
from django.utils import timezone

from core.accounts.models import ApiToken
from feedback.models import Experience, Feedback
from learnportal.ws import learn
from tests.builders import experience, experience_req, feedback, feedback_req, stats_req
from tests.harness import WS_TIMEOUT, Actor, ws_communicator

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator

    from core.accounts.credentials import Credential

pytestmark = pytest.mark.django_db(transaction=True)


async def assert_closed_unauthenticated(communicator: WebsocketCommunicator) -> None:
    connected, code = await communicator.connect(timeout=WS_TIMEOUT)
    if connected:  # accepted, then closed at once, so that a browser can read the code
        message = await communicator.receive_output(timeout=WS_TIMEOUT)
        assert message == {"type": "websocket.close", "code": 4401}
        await communicator.disconnect()
    else:
        assert code == 4401


async def test_a_handshake_without_a_token_is_closed_with_4401(anonymous: Actor) -> None:
    await assert_closed_unauthenticated(ws_communicator())


@pytest.mark.parametrize("token", ["lp_unknown", "", "garbage with spaces"])
async def test_a_handshake_with_a_bad_token_is_closed_with_4401(db: None, token: str) -> None:
    await assert_closed_unauthenticated(ws_communicator(token=token))


async def test_a_handshake_with_a_bad_query_token_is_closed_with_4401(db: None) -> None:
    await assert_closed_unauthenticated(ws_communicator(query="token=lp_nope"))


async def test_a_handshake_with_a_revoked_token_is_closed_with_4401(agent: Actor) -> None:
    await database_sync_to_async(ApiToken.objects.filter(name="agent-1").update)(
        revoked_at=timezone.now()
    )
    await assert_closed_unauthenticated(ws_communicator(token=agent.raw_token))


async def test_a_token_in_the_query_string_authenticates(agent: Actor) -> None:
    communicator = ws_communicator(query=f"token={agent.raw_token}")
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    await communicator.send_json_to(stats_req(id="q1"))
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert (reply["type"], reply["req_id"]) == ("learn/stats/resp", "q1")
    await communicator.disconnect()


async def test_bad_frames_get_errors_and_later_frames_are_answered(agent: Actor) -> None:
    communicator = ws_communicator(token=agent.raw_token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    bad_frames = [
        ("not json at all", "invalid"),
        ("[]", "invalid"),
        (orjson.dumps({"type": "learn/nope/req", "id": "n1"}).decode(), "unknown_type"),
        (orjson.dumps(feedback_req(feedback(score=9), id="b1")).decode(), "invalid"),
        (orjson.dumps(feedback_req(feedback(source="env"), id="b2")).decode(), "forbidden"),
    ]
    for frame, code in bad_frames:
        await communicator.send_to(text_data=frame)
        reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
        assert (reply["type"], reply["code"]) == ("learn/error", code)
    await communicator.send_to(bytes_data=b"\xff\xfe not utf-8")
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert (reply["type"], reply["code"]) == ("learn/error", "invalid")
    await communicator.send_json_to(experience_req(experience("c"), id="good"))
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert (reply["type"], reply["req_id"], reply["stored"]) == ("learn/experience/resp", "good", 1)
    await communicator.disconnect()


async def test_a_binary_frame_with_a_request_is_answered(agent: Actor) -> None:
    communicator = ws_communicator(token=agent.raw_token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    await communicator.send_to(bytes_data=orjson.dumps(stats_req(id="bin")))
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert (reply["type"], reply["req_id"]) == ("learn/stats/resp", "bin")
    await communicator.disconnect()


async def test_pipelined_requests_are_each_answered_with_their_req_id(agent: Actor) -> None:
    communicator = ws_communicator(token=agent.raw_token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    requests = [
        experience_req(experience("pipe"), id=f"p-{i}") if i % 2 else stats_req(id=f"p-{i}")
        for i in range(50)
    ]
    for request in requests:
        await communicator.send_json_to(request)
    replies = [await communicator.receive_json_from(timeout=WS_TIMEOUT) for _ in requests]
    await communicator.disconnect()
    assert sorted(reply["req_id"] for reply in replies) == sorted(r["id"] for r in requests)
    by_req = {reply["req_id"]: reply for reply in replies}
    for request in requests:
        expected = request["type"].removesuffix("/req") + "/resp"
        assert by_req[request["id"]]["type"] == expected
    assert await database_sync_to_async(Experience.objects.count)() == 25


async def test_frames_are_read_while_earlier_ones_are_answered(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frames that arrive while a batch is answered wait in the socket's queue, not behind the
    batch, and are answered together in the next one."""
    first_batch_started, all_read = threading.Event(), threading.Event()
    batches: list[int] = []
    answer = learn._answer

    def held_first_answer(credential: Credential, frames: list[learn.Frame]) -> Any:
        batches.append(len(frames))
        if len(batches) == 1:
            first_batch_started.set()
            all_read.wait(WS_TIMEOUT)
        return answer(credential, frames)

    receive = learn.LearnConsumer.receive
    read = 0

    async def counted_receive(
        self: learn.LearnConsumer, text_data: str | None = None, bytes_data: bytes | None = None
    ) -> None:
        nonlocal read
        await receive(self, text_data, bytes_data)
        read += 1
        if read == 6:
            all_read.set()

    monkeypatch.setattr(learn, "_answer", held_first_answer)
    monkeypatch.setattr(learn.LearnConsumer, "receive", counted_receive)
    communicator = ws_communicator(token=agent.raw_token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    await communicator.send_json_to(stats_req(id="r-0"))
    assert await asyncio.to_thread(first_batch_started.wait, WS_TIMEOUT)
    for n in range(1, 6):
        await communicator.send_json_to(stats_req(id=f"r-{n}"))
    replies = [await communicator.receive_json_from(timeout=WS_TIMEOUT) for _ in range(6)]
    await communicator.disconnect()
    assert [reply["req_id"] for reply in replies] == [f"r-{n}" for n in range(6)]
    assert batches == [1, 5]


async def test_a_logged_in_browser_session_authenticates(ann: Actor) -> None:
    def session_cookie() -> str:
        client = Client()
        assert client.login(request=HttpRequest(), username="ann", password="correct-horse-9")
        return client.cookies["sessionid"].value

    cookie = await database_sync_to_async(session_cookie)()
    communicator = ws_communicator(headers=[(b"cookie", f"sessionid={cookie}".encode())])
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    await communicator.send_json_to(
        feedback_req({"feedback_id": "fb-ws-session", "polarity": "positive"})
    )
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert reply["type"] == "learn/feedback/resp", reply
    await communicator.disconnect()
    row = await database_sync_to_async(Feedback.objects.get)(feedback_id="fb-ws-session")
    assert (row.annotator_id, row.source) == ("ann", "human")
