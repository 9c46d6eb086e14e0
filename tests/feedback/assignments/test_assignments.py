"""Assigning a project's queue, or one component's part of it, to named people (issue 27,
item 3): nobody else is leased those turns, steps or sessions; the rest stays open to all; a
manager keeps the assignments, each checked whole."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.assignments.models import QueueAssignment
from tests.builders import turn
from tests.harness import Actor, human_actor, refused_at

pytestmark = pytest.mark.django_db

URL = "/api/queue-assignments/"


@pytest.fixture
def people() -> dict[str, Actor]:
    return {name: human_actor(name, "annotator") for name in ("ada", "bea", "cy")}


def queued(agent: Actor, **by_component: list[str]) -> None:
    turns = [
        {"correlation_id": key, "component_name": component, "rated_turn": turn()}
        for component, keys in by_component.items()
        for key in keys
    ]
    assert agent.rest("post", "/api/turns/", {"turns": turns}).status_code == 201


def assign(manager: Actor, **fields: Any) -> dict[str, Any]:
    response = manager.rest("post", URL, fields)
    assert response.status_code == 201, response.content
    made: dict[str, Any] = response.json()
    return made


def everything_for(actor: Actor) -> list[str]:
    """The correlation ids the queue leases `actor`, one after another, each skipped."""
    seen: list[str] = []
    while True:
        response = actor.rest("post", "/api/queue/next/")
        if response.status_code == 204:
            return seen
        held = response.json()["turn"]
        seen.append(held["correlation_id"])
        assert actor.rest("post", "/api/queue/skip/", {"turn": held["id"]}).status_code == 204


def test_a_component_assigned_to_two_people_goes_to_them_alone(
    agent: Actor, boss: Actor, people: dict[str, Actor]
) -> None:
    queued(agent, legal=["l-1", "l-2"], chat=["c-1"])
    assign(boss, component="legal", usernames=["ada", "bea"])
    assert sorted(everything_for(people["ada"])) == ["c-1", "l-1", "l-2"]
    assert sorted(everything_for(people["bea"])) == ["c-1", "l-1", "l-2"]
    assert everything_for(people["cy"]) == ["c-1"]


def test_the_whole_queue_assigned_leaves_others_nothing_but_their_own_components(
    agent: Actor, boss: Actor, people: dict[str, Actor]
) -> None:
    queued(agent, legal=["l-1"], chat=["c-1"], code=["k-1"])
    assign(boss, usernames=["ada"])
    assign(boss, component="code", usernames=["cy"])
    assert sorted(everything_for(people["ada"])) == ["c-1", "l-1"]
    assert everything_for(people["bea"]) == []
    assert everything_for(people["cy"]) == ["k-1"]


def test_deleting_an_assignment_opens_its_part_to_everyone(
    agent: Actor, boss: Actor, people: dict[str, Actor]
) -> None:
    queued(agent, legal=["l-1"])
    made = assign(boss, component="legal", usernames=["ada"])
    assert people["cy"].rest("post", "/api/queue/next/").status_code == 204
    assert boss.rest("delete", f"{URL}{made['id']}/").status_code == 204
    assert everything_for(people["cy"]) == ["l-1"]


def test_assigned_steps_go_to_the_assigned_people_alone(
    agent: Actor, boss: Actor, people: dict[str, Actor]
) -> None:
    step = {"step_id": "s1", "name": "search", "kind": "tool", "start": 1.0, "output": "x"}
    body = {
        "turns": [
            {
                "correlation_id": "t-1",
                "component_name": "legal",
                "rated_turn": turn(),
                "steps": [step],
            }
        ]
    }
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    assign(boss, component="legal", usernames=["ada"])
    assert people["cy"].rest("post", "/api/queue/next/?steps=tool").status_code == 204
    held = people["ada"].rest("post", "/api/queue/next/?steps=tool")
    assert held.status_code == 200 and held.json()["step"]["step_id"] == "s1"


def test_a_manager_keeps_assignments_and_each_is_checked_whole(
    boss: Actor, people: dict[str, Actor], ann: Actor
) -> None:
    made = assign(boss, component="legal", usernames=["ada"])
    listed = boss.rest("get", URL).json()["results"]
    assert [(a["id"], a["component"], a["usernames"], a["by"]) for a in listed] == [
        (made["id"], "legal", ["ada"], "boss")
    ]
    stranger = boss.rest("post", URL, {"component": "chat", "usernames": ["ada", "nobody"]})
    assert refused_at(stranger, 400) == [["usernames", 1]]
    twice = boss.rest("post", URL, {"component": "chat", "usernames": ["ada", "ada"]})
    assert refused_at(twice, 400) == [["usernames", 1]]
    empty = boss.rest("post", URL, {"component": "chat", "usernames": []})
    assert refused_at(empty, 400) == [["usernames"]]
    again = boss.rest("post", URL, {"component": "legal", "usernames": ["bea"]})
    assert refused_at(again, 409) == [["component"]]
    changed = boss.rest("put", f"{URL}{made['id']}/", {"component": "legal", "usernames": ["bea"]})
    assert changed.status_code == 200 and changed.json()["usernames"] == ["bea"]
    assert [a.usernames for a in QueueAssignment.objects.all()] == [["bea"]]
    assert ann.rest("post", URL, {"usernames": ["ann"]}).status_code == 403
    assert ann.rest("get", URL).status_code == 403
    assert boss.rest("delete", f"{URL}999999/").status_code == 404


def test_the_turns_a_rule_let_in_go_to_the_people_it_is_assigned_to(
    agent: Actor, boss: Actor, env: Actor, people: dict[str, Actor]
) -> None:
    failures = boss.rest(
        "post",
        "/api/intake-rules/",
        {"name": "failures", "source": "env", "polarity": "negative", "rate": 1, "priority": 3},
    ).json()
    boss.rest("post", "/api/intake-rules/", {"name": "chat", "component": "chat", "rate": 1})
    queued(agent, legal=["l-1", "l-2"], chat=["c-1"])
    bad = {"feedback_id": "f-1", "correlation_id": "l-1", "source": "env", "polarity": "negative"}
    assert (
        env.learn(
            {"type": "learn/feedback/req", "id": "r-1", "feedbacks": [{**bad, "score": -1}]}
        ).status_code
        == 200
    )
    assign(boss, rule=failures["id"], usernames=["ada"])
    assert sorted(everything_for(people["ada"])) == ["c-1", "l-1"]
    assert everything_for(people["cy"]) == ["c-1"]


def test_an_assignment_by_rule_is_checked(boss: Actor, people: dict[str, Actor]) -> None:
    made = boss.rest("post", "/api/intake-rules/", {"name": "all", "rate": 1}).json()
    assert refused_at(boss.rest("post", URL, {"rule": 999999, "usernames": ["ada"]}), 400) == [
        ["rule"]
    ]
    both = boss.rest("post", URL, {"rule": made["id"], "component": "x", "usernames": ["ada"]})
    assert refused_at(both, 400) == [["rule"]]
    assert assign(boss, rule=made["id"], usernames=["ada"])["rule"] == made["id"]
    again = boss.rest("post", URL, {"rule": made["id"], "usernames": ["bea"]})
    assert refused_at(again, 409) == [["rule"]]
    assert assign(boss, usernames=["bea"])["rule"] is None  # the whole queue: another part
