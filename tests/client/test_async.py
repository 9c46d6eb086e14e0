"""`AsyncLearnClient` and `AsyncLearnSession` against a live server."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

from learnportal_client import (
    Action,
    AsyncLearnClient,
    Experience,
    LearnError,
    LearnExperienceResponse,
    LearnStatsResponse,
)
from learnportal_protocol.messages import Envelope, LearnExperienceRequest, LearnStatsRequest
from tests.client.conftest import SLOW_BACKOFF

if TYPE_CHECKING:
    from learnportal_client.calls import AsyncLearnCalls
    from tests.client.conftest import Portal

TURN = {"prompt": "Summarize", "response": "A summary.", "model": "writer"}


async def each_call(client: AsyncLearnCalls) -> None:
    stored = await client.experience(
        [{"action": {"component_name": "search", "success": True}, "reward": 1.0}]
    )
    assert stored.stored == 1
    recorded = await client.feedback([{"polarity": "positive", "component_name": "search"}])
    assert recorded.recorded == 1
    assert (await client.stats("search")).components[0].calls_total == 1
    assert (await client.adapt(strategy="ucb1")).updated
    plan = await client.refinement_plan("search")
    assert plan.plan_id
    proposal = {
        "target": "router_weight",
        "op": "update",
        "path": "router.weights.fresh",
        "old_value": 0.5,
        "new_value": 0.55,
    }
    assert (await client.refinement_review(proposal)).approved
    applied = await client.refinement_apply(proposal)
    assert (await client.refinement_rollback(applied.refinement_id)).rolled_back
    assert (await client.refinement_history()).entries


async def test_each_call_is_awaited_over_http(portal: Portal) -> None:
    async with AsyncLearnClient(portal.url, portal.token) as client:
        await each_call(client)


async def test_each_call_is_awaited_over_a_session(portal: Portal) -> None:
    async with (
        AsyncLearnClient(portal.url, portal.token) as client,
        await client.session() as session,
    ):
        await each_call(session)


async def test_a_session_pipelines_and_matches_replies_by_req_id(portal: Portal) -> None:
    requests: list[Envelope] = [
        LearnExperienceRequest(
            id=f"exp-{i}", experiences=[Experience(action=Action(component_name=f"c{i % 3}"))]
        )
        for i in range(30)
    ]
    requests.insert(15, LearnStatsRequest(id="stats"))
    async with (
        AsyncLearnClient(portal.url, portal.token) as client,
        await client.session() as session,
    ):
        replies = await session.pipeline(requests)
    assert [r.req_id for r in replies if not isinstance(r, LearnError)] == [r.id for r in requests]
    assert isinstance(replies[15], LearnStatsResponse)
    assert all(isinstance(r, LearnExperienceResponse) and r.stored == 1 for r in replies[16:])


async def test_a_sessions_refusal_is_a_learn_error_and_the_session_goes_on(
    portal: Portal,
) -> None:
    async with (
        AsyncLearnClient(portal.url, portal.token) as client,
        await client.session() as session,
    ):
        refused, answered = await asyncio.gather(
            session.feedback([{"polarity": "positive", "source": "human"}]),
            session.stats(),
            return_exceptions=True,
        )
    assert isinstance(refused, LearnError)
    assert refused.code == "forbidden"
    assert refused.details
    assert isinstance(answered, LearnStatsResponse)


async def test_a_session_with_a_bad_token_is_unauthenticated(portal: Portal) -> None:
    async with AsyncLearnClient(portal.url, portal.token) as client:
        session = await client.session()
    session._token = "not-a-token"
    with pytest.raises(LearnError) as refused:
        async with session:
            await session.stats()
    assert refused.value.code == "unauthenticated"


async def test_the_rest_side_agents_use_is_awaited_too(portal: Portal) -> None:
    async with AsyncLearnClient(portal.url, portal.token) as client:
        assert (await client.routing()).weights == {}
        turns = [{"correlation_id": f"t{i}", "rated_turn": TURN} for i in range(2)]
        created = await client.submit_turns(turns)
        assert (created.received, created.created) == (2, 2)
        page = await client.turns(limit=1)
        assert [t.correlation_id for t in page.results] == ["t1"]
        assert page.next
        assert [t.correlation_id for t in (await client.turns(cursor=page.next)).results] == ["t0"]
        outcome = await client.report_run("summarize", "Summarize the article.")
        assert outcome.step["runs_total"] == 1


async def test_a_sessions_rate_limited_frame_is_sent_again_after_its_retry_after(
    portal: Portal, settings: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 1
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(seconds)

    async with (
        AsyncLearnClient(
            portal.url, portal.token, max_batch=100, sleep=sleep, retry=SLOW_BACKOFF
        ) as client,
        await client.session() as session,
    ):
        replies = await session.pipeline([LearnStatsRequest() for _ in range(3)])
    assert all(isinstance(r, LearnStatsResponse) for r in replies), replies
    assert waits  # refused with retry_after, then answered
    # The host's Retry-After of a 1 s window: 1, or 0 if the window ended meanwhile; the
    # client's own backoff would have been 5.
    assert all(0 <= w <= 1 for w in waits)
