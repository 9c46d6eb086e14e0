"""The blocking `LearnSession`: a whole list sent before any reply is read; and both sessions
matching replies to requests by `req_id`, whatever order they come in."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from typing import TYPE_CHECKING, Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve

from feedback.models import Experience as StoredExperience
from learnportal_client import (
    NO_RETRY,
    Action,
    AsyncLearnClient,
    Experience,
    Feedback,
    FeedbackPolarity,
    FeedbackSource,
    LearnClient,
    LearnError,
    LearnExperienceResponse,
    LearnStatsResponse,
    StatsResponse,
)
from learnportal_client.calls import stats_request
from learnportal_client.session import AsyncLearnSession, LearnSession
from learnportal_protocol.messages import (
    Envelope,
    LearnExperienceRequest,
    LearnFeedbackRequest,
    LearnStatsRequest,
)
from tests.client.conftest import SLOW_BACKOFF
from tests.client.test_buffer import dead_url
from tests.client.test_calls import calls

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from tests.client.conftest import Portal


def test_each_call_answers_its_response_model_over_a_session(client: LearnClient) -> None:
    with client.session() as session:
        calls(session)


def test_a_pipeline_answers_each_request_in_order(client: LearnClient) -> None:
    requests: list[Envelope] = [
        LearnExperienceRequest(experiences=[Experience(action=Action(component_name="c"))])
        for _ in range(20)
    ]
    requests.append(LearnStatsRequest())
    with client.session() as session:
        replies = session.pipeline(requests)
    assert [r.req_id for r in replies if not isinstance(r, LearnError)] == [r.id for r in requests]
    assert all(isinstance(r, LearnExperienceResponse) for r in replies[:20])
    assert isinstance(replies[20], LearnStatsResponse)
    assert StoredExperience.objects.count() == 20


def test_a_refused_request_of_a_pipeline_is_its_error_and_the_others_are_answered(
    client: LearnClient,
) -> None:
    with client.session() as session:
        bad, good = session.pipeline(
            [
                LearnFeedbackRequest(
                    feedbacks=[
                        Feedback(polarity=FeedbackPolarity.NEUTRAL, source=FeedbackSource.ENV)
                    ]
                ),
                LearnStatsRequest(),
            ]
        )
        assert isinstance(bad, LearnError)
        assert (bad.code, bad.details[0]["loc"][:2]) == ("forbidden", ["feedbacks", 0])
        assert isinstance(good, LearnStatsResponse)
        assert session.experience([{"reward": 0.1}]).stored == 1


def test_a_rate_limited_frame_is_sent_again_after_its_retry_after(
    portal: Portal, settings: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 1
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    with (
        LearnClient(
            portal.url, portal.token, max_batch=100, sleep=sleep, retry=SLOW_BACKOFF
        ) as client,
        client.session() as session,
    ):
        replies = session.pipeline([LearnStatsRequest() for _ in range(3)])
    assert all(isinstance(r, LearnStatsResponse) for r in replies), replies
    assert waits
    # The host's Retry-After of a 1 s window: 1, or 0 if the window ended meanwhile; the
    # client's own backoff would have been 5.
    assert all(0 <= w <= 1 for w in waits)


NAMES = [f"component-{i}" for i in range(6)]


@contextlib.contextmanager
def host_answering_last_first(count: int) -> Iterator[str]:
    """A /ws/learn/ host that reads `count` stats requests, then answers the last one first."""

    def handle(conn: ServerConnection) -> None:
        frames = [json.loads(conn.recv()) for _ in range(count)]
        for frame in reversed(frames):
            components = [{"component_name": frame["component_name"]}]
            reply = LearnStatsResponse(req_id=frame["id"], components=components)
            conn.send(reply.model_dump_json())
        with contextlib.suppress(ConnectionClosed):
            conn.recv()

    with serve(handle, "127.0.0.1", 0) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}/ws/learn/"
        server.shutdown()
        thread.join(timeout=30)


def answered_names(replies: Sequence[object]) -> list[str]:
    assert all(isinstance(r, StatsResponse) for r in replies), replies
    return [r.components[0].component_name for r in replies if isinstance(r, StatsResponse)]


def test_replies_in_another_order_are_matched_by_req_id() -> None:
    with (
        host_answering_last_first(len(NAMES)) as url,
        LearnSession(url, "t", retry=NO_RETRY, max_batch=10, sleep=time.sleep) as session,
    ):
        replies = session.pipeline([stats_request(name) for name in NAMES])
    assert answered_names(replies) == NAMES


async def test_replies_in_another_order_are_matched_by_req_id_when_awaited() -> None:
    with host_answering_last_first(len(NAMES)) as url:
        async with AsyncLearnSession(
            url, "t", retry=NO_RETRY, max_batch=10, sleep=asyncio.sleep
        ) as session:
            replies = await session.pipeline([stats_request(name) for name in NAMES])
    assert answered_names(replies) == NAMES


def test_a_session_to_no_host_is_unreachable() -> None:
    with pytest.raises(LearnError) as refused:
        LearnClient(dead_url(), "t", max_batch=10).session()
    assert refused.value.code == "unreachable"


async def test_an_awaited_session_to_no_host_is_unreachable() -> None:
    session = await AsyncLearnClient(dead_url(), "t", max_batch=10).session()
    with pytest.raises(LearnError) as refused:
        await session.open()
    assert refused.value.code == "unreachable"
