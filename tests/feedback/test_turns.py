"""`/api/turns/`: agents queue turns for annotators; people read the queue."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.db import connections
from rest_framework.test import APIClient

from core.accounts.roles import Role
from feedback.models import Turn
from feedback.services.turns import TurnInput, turns_submit
from learnportal_protocol import RatedTurn
from tests.builders import feedback, feedback_req, turn
from tests.factories import PrincipalFactory

if TYPE_CHECKING:
    from pytest_django import Settings

    from core.accounts.principals import Principal
    from tests.harness import Actor, APIClientResponse, Broadcasts


def item(correlation_id: str, **fields: Any) -> dict[str, Any]:
    return {"correlation_id": correlation_id, "rated_turn": turn(), **fields}


def post_turns(actor: Actor, *items: dict[str, Any]) -> APIClientResponse:
    body = orjson.dumps({"turns": list(items)})
    return actor.client.post("/api/turns/", data=body, content_type="application/json")


def test_an_agent_queues_turns(agent: Actor) -> None:
    response = post_turns(
        agent,
        item(
            "t-1",
            session_id="s-1",
            component_name="summarize",
            rated_turn=turn(model="m-2", version="v3"),
        ),
        item("t-2"),
    )
    assert response.status_code == 201, response.json()
    assert response.json() == {"received": 2, "created": 2}
    queued = Turn.objects.get(correlation_id="t-1")
    assert (queued.session_id, queued.component_name, queued.model, queued.version) == (
        "s-1",
        "summarize",
        "m-2",
        "v3",
    )
    assert queued.prompt == "What is the answer?" and queued.response == "The answer is 42."


def test_an_environment_queues_turns(env: Actor) -> None:
    assert post_turns(env, item("t-env")).status_code == 201


def test_turns_are_deduplicated_by_correlation_id(agent: Actor) -> None:
    assert post_turns(agent, item("t-1"), item("t-2")).json()["created"] == 2
    response = post_turns(agent, item("t-2"), item("t-3"), item("t-3"))
    assert response.status_code == 201
    assert response.json() == {"received": 3, "created": 1}
    assert Turn.objects.count() == 3


def test_a_batch_with_one_bad_turn_stores_nothing(agent: Actor) -> None:
    response = post_turns(
        agent, item("t-1"), {"correlation_id": "t-2", "rated_turn": {"prompt": "p"}}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    locs = [d["loc"] for d in response.json()["details"]]
    assert ["turns", 1, "rated_turn", "response"] in locs
    assert Turn.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"{}",
        b'{"turns": [{"correlation_id": "", "rated_turn": {"prompt": "p", "response": "r", "model": "m"}}]}',
        b'{"turns": [], "extra": 1}',
    ],
    ids=["not-json", "no-turns", "empty-correlation-id", "unknown-field"],
)
def test_a_bad_turns_body_is_invalid(agent: Actor, body: bytes) -> None:
    response = agent.client.post("/api/turns/", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_more_turns_than_the_batch_limit_is_too_large(agent: Actor, settings: Settings) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 2
    response = post_turns(agent, item("a"), item("b"), item("c"))
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    assert Turn.objects.count() == 0


def test_an_annotator_may_read_turns_but_not_queue_them(ann: Actor, agent: Actor) -> None:
    post_turns(agent, item("t-1"))
    response = post_turns(ann, item("t-2"))
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    listed = ann.client.get("/api/turns/")
    assert listed.status_code == 200
    assert [t["correlation_id"] for t in listed.json()["results"]] == ["t-1"]


def test_reading_turns_needs_credentials(db: None) -> None:
    response = APIClient().get("/api/turns/")
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_turns_are_filtered(agent: Actor, ann: Actor) -> None:
    post_turns(
        agent,
        item("a-1", session_id="s-a", component_name="search"),
        item("a-2", session_id="s-a", component_name="summarize"),
        item("b-1", session_id="s-b", component_name="search"),
    )

    def ids(query: str) -> set[str]:
        response = ann.client.get(f"/api/turns/?{query}")
        assert response.status_code == 200
        return {t["correlation_id"] for t in response.json()["results"]}

    assert ids("session_id=s-a") == {"a-1", "a-2"}
    assert ids("component_name=search") == {"a-1", "b-1"}
    assert ids("session_id=s-a&component_name=search") == {"a-1"}
    assert ids("correlation_id=b-1") == {"b-1"}
    assert ids("") == {"a-1", "a-2", "b-1"}


def test_unrated_turns_are_those_without_feedback(agent: Actor, ann: Actor) -> None:
    post_turns(agent, item("rated"), item("waiting"))
    ann.learn(feedback_req(feedback(correlation_id="rated")))
    response = ann.client.get("/api/turns/?unrated=1")
    assert {t["correlation_id"] for t in response.json()["results"]} == {"waiting"}


def test_turns_are_listed_page_by_page_with_a_cursor(agent: Actor, ann: Actor) -> None:
    post_turns(agent, *[item(f"t-{i:02d}") for i in range(7)])
    seen: list[str] = []
    url = "/api/turns/?limit=3"
    pages = 0
    while url:
        response = ann.client.get(url)
        assert response.status_code == 200
        page = response.json()
        assert len(page["results"]) <= 3
        seen.extend(t["correlation_id"] for t in page["results"])
        url = page["next"]
        pages += 1
    assert pages == 3
    assert sorted(seen) == [f"t-{i:02d}" for i in range(7)]
    assert len(seen) == len(set(seen))


def test_a_listed_turn_has_its_fields(agent: Actor, ann: Actor) -> None:
    post_turns(agent, item("t-1", session_id="s", component_name="c"))
    (listed,) = ann.client.get("/api/turns/").json()["results"]
    assert {"correlation_id", "session_id", "component_name", "prompt", "response", "model"} <= set(
        listed
    )
    assert (listed["correlation_id"], listed["session_id"], listed["component_name"]) == (
        "t-1",
        "s",
        "c",
    )


def test_a_rated_turn_inside_a_feedback_is_listed_as_a_turn(ann: Actor) -> None:
    ann.learn(feedback_req(feedback(correlation_id="from-feedback", rated_turn=turn(model="m-9"))))
    listed = ann.client.get("/api/turns/?correlation_id=from-feedback").json()["results"]
    assert [(t["correlation_id"], t["model"]) for t in listed] == [("from-feedback", "m-9")]


def test_a_turn_queued_before_its_feedback_is_not_duplicated(agent: Actor, ann: Actor) -> None:
    post_turns(agent, item("t-1"))
    response = ann.learn(feedback_req(feedback(correlation_id="t-1", rated_turn=turn())))
    assert response.status_code == 200
    assert Turn.objects.filter(correlation_id="t-1").count() == 1


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ("NaN", None),
        ("Infinity", None),
        ("1e400", ["turns", 0, "rated_turn", "environment", "x"]),
        (str(2**64 + 1), ["turns", 0, "rated_turn", "environment", "x"]),
        ('"a\\u0000"', ["turns", 0, "rated_turn", "environment", "x"]),
    ],
)
def test_queued_turns_refuse_what_json_or_the_database_cannot_keep(
    agent: Actor, raw: str, loc: list[Any] | None
) -> None:
    body = orjson.dumps({"turns": [item("t-x", rated_turn=turn(environment={"x": "@"}))]})
    response = agent.client.post(
        "/api/turns/", data=body.replace(b'"@"', raw.encode()), content_type="application/json"
    )
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "invalid"
    if loc is not None:
        assert loc in [d["loc"] for d in response.json()["details"]]
    assert not Turn.objects.exists()


def test_queued_turns_refuse_a_repeated_key(agent: Actor) -> None:
    body = b'{"turns": [{"correlation_id": "a", "correlation_id": "b", "rated_turn": ' + (
        orjson.dumps(turn()) + b"}]}"
    )
    response = agent.client.post("/api/turns/", data=body, content_type="application/json")
    assert (response.status_code, response.json()["code"]) == (400, "invalid")
    assert "duplicate key" in response.json()["message"]
    assert not Turn.objects.exists()


def test_a_turns_context_reads_as_json_and_text_that_is_not_json_as_none() -> None:
    from feedback.models import Turn

    def unsaved(environment: str | None) -> Turn:
        # A project named, so that no default is looked up: this test needs no database.
        return Turn(environment=environment, project_id=1)

    assert unsaved('{"tool": "search", "k": 3}').environment_value() == {"tool": "search", "k": 3}
    assert unsaved(None).environment_value() is None
    assert unsaved("not json, from an older host").environment_value() is None


def _queue_at_once(agents: list[Principal], keys: list[str]) -> list[int]:
    """Each agent queues the turns `keys` at once: how many each created."""
    barrier = threading.Barrier(len(agents))
    created: list[int] = []
    errors: list[BaseException] = []

    def send(who: Principal) -> None:
        batch = [
            TurnInput(k, "s", "c", RatedTurn(prompt="Q", response="A", model="m")) for k in keys
        ]
        try:
            barrier.wait(timeout=10)
            created.append(turns_submit(principal=who, turns=batch).created)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send, args=(who,)) for who in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return created


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_agents_queueing_the_same_new_turns_at_once_store_each_once(
    broadcasts: Broadcasts,
) -> None:
    """Each finds the turns new and writes them with one COPY; all but the first are refused
    by the database and look again, meeting them stored."""
    agents = [PrincipalFactory.build(role=Role.AGENT, name=f"agent-{i}") for i in range(4)]
    for round_ in range(3):
        keys = [f"r{round_}-t{i}" for i in range(50)]
        broadcasts.sent.clear()
        created = _queue_at_once(agents, keys)
        assert sum(created) == len(keys), created
        assert Turn.objects.filter(correlation_id__in=keys).count() == len(keys)
        # Announced once each, by whoever stored them.
        assert sum(b.payload["count"] for b in broadcasts.sent) == len(keys)
