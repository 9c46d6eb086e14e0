"""`/ws/events/` is per project: a socket acts in the project its principal acts in (a machine
token's own, a person's home project, or the one `?project=` names on the socket's URL), hears
only that project's events, and the live totals in them (feedback_count, turns_unrated) count
that project alone; a project one may not enter closes the socket with 4404, exactly as one
that does not exist (docs/contract.md, "Teams: projects").

Two projects throughout: `default` and `alpha`, each with its agent and an annotator.
"""

from __future__ import annotations

import asyncio
import threading
import time
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from asgiref.sync import sync_to_async

from core.accounts.models import User
from core.events import Coalescer
from core.projects.services import member_set, project_add, project_named
from learnportal.ws.events import CLOSE_NO_PROJECT
from tests.builders import feedback, feedback_req
from tests.harness import WS_TIMEOUT, Actor, human_actor, token_actor, ws_communicator

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator

pytestmark = pytest.mark.django_db(transaction=True)

ALPHA = "alpha"
QUIET = 1.0  # longer than a flush interval (core.events.FLUSH_SECONDS)


@pytest.fixture
def teams(db: None) -> dict[str, Actor]:
    project_add(slug=ALPHA, name="Alpha")
    return {
        "default-agent": token_actor("default-agent", "agent"),
        "default-ann": human_actor("dana", "annotator"),
        "alpha-agent": token_actor("alpha-agent", "agent", project=ALPHA),
        "alpha-ann": human_actor("aria", "annotator", project=ALPHA),
    }


async def listening(actor: Actor, query: str = "") -> WebsocketCommunicator:
    communicator = ws_communicator(token=actor.raw_token, query=query, path="/ws/events/")
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    return communicator


async def heard(listener: WebsocketCommunicator, count: int = 0) -> list[dict[str, Any]]:
    """The `count` frames awaited (each however late a loaded machine sends it), then any more
    until none came for QUIET seconds: more than `count` only when more were sent."""
    frames = [orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT)) for _ in range(count)]
    while not await listener.receive_nothing(timeout=QUIET):
        frames.append(orjson.loads(await listener.receive_from(timeout=WS_TIMEOUT)))
    return frames


async def sent(actor: Actor, *ids: str) -> None:
    """learn/feedback/req over HTTP, one feedback an id, which must be stored."""
    body = feedback_req(*(feedback(feedback_id=i, component_name="search") for i in ids))
    response = await sync_to_async(actor.learn)(body)
    assert response.status_code == 200, response.content


async def queued(agent: Actor, *keys: str) -> None:
    turns = [
        {"correlation_id": k, "rated_turn": {"prompt": "Q?", "response": "A.", "model": "m"}}
        for k in keys
    ]
    response = await sync_to_async(agent.rest)("post", "/api/turns/", {"turns": turns})
    assert response.status_code == 201, response.content


async def closed_with(communicator: WebsocketCommunicator) -> Any:
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected  # accepted, then closed: a browser sees why
    return (await communicator.receive_output(timeout=WS_TIMEOUT)).get("code")


def summary(frames: list[dict[str, Any]]) -> list[tuple[str, Any, Any, Any]]:
    return [
        (
            f["event"],
            f["payload"].get("by"),
            f["payload"].get("feedback_count"),
            f["payload"].get("turns_unrated"),
        )
        for f in frames
    ]


async def test_each_projects_members_hear_its_events_and_totals_and_not_the_others(
    teams: dict[str, Actor],
) -> None:
    alpha_ear, default_ear = (
        await listening(teams["alpha-ann"]),
        await listening(teams["default-ann"]),
    )
    # Heard before alpha acts: a flush comes when it comes, and one that came late would be
    # heard by a socket opened after the send.
    await sent(teams["default-agent"], "d-1", "d-2", "d-3")
    assert summary(await heard(default_ear, 1)) == [("feedback.recorded", "default-agent", 3, 0)]
    await queued(teams["alpha-agent"], "a-turn")
    # alpha's totals: its one turn waiting, then its one feedback, not default's three.
    assert summary(await heard(alpha_ear, 1)) == [("turns.queued", "alpha-agent", 0, 1)]
    await sent(teams["alpha-agent"], "a-1")
    assert summary(await heard(alpha_ear, 1)) == [("feedback.recorded", "alpha-agent", 1, 1)]
    assert await heard(default_ear) == []
    await sent(teams["default-agent"], "d-4")
    assert summary(await heard(default_ear, 1)) == [("feedback.recorded", "default-agent", 4, 0)]
    assert await heard(alpha_ear) == []
    await alpha_ear.disconnect()
    await default_ear.disconnect()


async def test_a_person_in_two_projects_hears_the_one_named_on_the_sockets_url(
    teams: dict[str, Actor],
) -> None:
    def join_alpha() -> None:
        member_set(
            project=project_named(ALPHA), person=User.objects.get(username="dana"), role="reviewer"
        )

    await sync_to_async(join_alpha)()
    in_alpha = await listening(teams["default-ann"], f"project={ALPHA}")
    at_home = await listening(teams["default-ann"])  # her home project: default
    await sent(teams["alpha-agent"], "a-1")
    await sent(teams["default-agent"], "d-1", "d-2")
    assert summary(await heard(in_alpha, 1)) == [("feedback.recorded", "alpha-agent", 1, 0)]
    assert summary(await heard(at_home, 1)) == [("feedback.recorded", "default-agent", 2, 0)]
    await in_alpha.disconnect()
    await at_home.disconnect()


async def test_a_project_one_may_not_enter_closes_the_socket_as_one_that_does_not_exist(
    teams: dict[str, Actor],
) -> None:
    for actor in (teams["default-ann"], teams["default-agent"]):
        for slug in (ALPHA, "no-such-project"):
            refused = ws_communicator(
                token=actor.raw_token, query=f"project={slug}", path="/ws/events/"
            )
            assert await closed_with(refused) == CLOSE_NO_PROJECT, (actor.name, slug)
    # Their own project, named, is theirs to hear.
    named = await listening(teams["default-ann"], "project=default")
    await sent(teams["default-agent"], "d-1")
    assert summary(await heard(named, 1)) == [("feedback.recorded", "default-agent", 1, 0)]
    await named.disconnect()


def totals_of(project: str) -> dict[str, Any]:
    return {"feedback_count": f"{project}'s"}


def test_events_of_two_projects_wait_as_a_topic_each_with_that_projects_totals() -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    coalescer = Coalescer(interval=3600, _last_flush=time.monotonic())  # no flush in this test
    coalescer.attach(loop)
    try:
        for project, count in (("default", 2), (ALPHA, 1), ("default", 3)):
            coalescer.mark(
                "feedback.recorded",
                {"count": count},
                project=project,
                audience="read stats",
                totals=partial(totals_of, project),
            )
        messages = sorted((t.message() for t in coalescer.pending()), key=lambda m: m["project"])
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
    assert [(m["project"], m["payload"]) for m in messages] == [
        (ALPHA, {"count": 1, "feedback_count": "alpha's"}),
        ("default", {"count": 5, "feedback_count": "default's", "coalesced": 2}),
    ]
