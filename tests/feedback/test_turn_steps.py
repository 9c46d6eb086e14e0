"""A turn's run as steps: `POST /api/turns/` carries them on each turn, `GET /api/turns/<id>/`
answers them; a step id is stored once a turn, and every bound refuses the whole batch naming
the step's place (docs/contract.md, "Traces")."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from feedback.models import Turn, TurnStep
from feedback.traces.steps import step_depths
from tests.builders import turn
from tests.harness import Actor, token_actor

pytestmark = pytest.mark.django_db


def step(step_id: str, parent_id: str = "", **fields: Any) -> dict[str, Any]:
    return {"step_id": step_id, "parent_id": parent_id, "name": f"do {step_id}", **fields}


def send(agent: Actor, *steps: dict[str, Any], key: str = "t-1") -> Any:
    body = {"turns": [{"correlation_id": key, "rated_turn": turn(), "steps": list(steps)}]}
    return agent.rest("post", "/api/turns/", body)


def shown(actor: Actor, key: str = "t-1") -> dict[str, Any]:
    pk = Turn.objects.get(correlation_id=key).pk
    response = actor.rest("get", f"/api/turns/{pk}/")
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_a_turn_keeps_its_steps_and_answers_them_earliest_first(agent: Actor) -> None:
    tool = step(
        "b2",
        "a1",
        kind="tool",
        input='{"q": "weather"}',
        output="sunny",
        start=1_800_000_001.5,
        end=1_800_000_002.0,
        attributes={"gen_ai.tool.name": "search", "retries": 2},
    )
    root = step(
        "a1", kind="agent", start=1_800_000_000.0, end=1_800_000_003.0, tokens_in=12, cost=0.25
    )
    failed = step("c3", "a1", kind="llm", status="error", error="timeout")
    sent = send(agent, tool, failed, root)
    assert sent.status_code == 201, sent.content
    steps = shown(agent)["steps"]
    assert [s["step_id"] for s in steps] == ["a1", "b2", "c3"]  # c3 has no start: last
    assert steps[1] == {
        "step_id": "b2",
        "parent_id": "a1",
        "name": "do b2",
        "kind": "tool",
        "input": '{"q": "weather"}',
        "output": "sunny",
        "start": 1_800_000_001.5,
        "end": 1_800_000_002.0,
        "status": "ok",
        "error": "",
        "tokens_in": None,
        "tokens_out": None,
        "cost": None,
        "attributes": {"gen_ai.tool.name": "search", "retries": 2},
    }
    assert (steps[0]["tokens_in"], steps[0]["cost"]) == (12, 0.25)
    assert (steps[2]["status"], steps[2]["error"]) == ("error", "timeout")


def test_steps_sent_again_are_stored_once_and_new_ones_join_the_turn(agent: Actor) -> None:
    assert send(agent, step("a1"), step("b2", "a1")).status_code == 201
    again = send(agent, step("a1", name="renamed"), step("c3", "b2"))
    assert again.status_code == 201
    assert again.json() == {"received": 1, "created": 0}
    steps = {s["step_id"]: s for s in shown(agent)["steps"]}
    assert sorted(steps) == ["a1", "b2", "c3"]
    assert steps["a1"]["name"] == "do a1"  # the first sent
    assert TurnStep.objects.count() == 3


def test_a_child_may_come_before_its_parent(agent: Actor) -> None:
    assert send(agent, step("child", "parent")).status_code == 201
    assert send(agent, step("parent")).status_code == 201
    assert {s["step_id"]: s["parent_id"] for s in shown(agent)["steps"]} == {
        "child": "parent",
        "parent": "",
    }


@pytest.mark.parametrize(
    ("steps", "place"),
    [
        ([step("a1"), step("a1")], ["turns", 0, "steps", 1, "step_id"]),
        ([step("a1", start=1_800_000_002.0, end=1_800_000_001.0)], ["turns", 0, "steps", 0, "end"]),
        ([step("a1", "a1")], ["turns", 0, "steps", 0, "parent_id"]),
        ([step("a1", kind="thinking")], ["turns", 0, "steps", 0, "kind"]),
        ([step("a1", status="fine")], ["turns", 0, "steps", 0, "status"]),
        ([step("a1", tokens_in=-1)], ["turns", 0, "steps", 0, "tokens_in"]),
        ([step("a1", name="")], ["turns", 0, "steps", 0, "name"]),
        ([step("a1", input="nul\x00")], ["turns", 0, "steps", 0, "input"]),
        ([step("a1", attributes={"k": "v" * 300})], ["turns", 0, "steps", 0, "attributes"]),
        ([step("a1", "b2"), step("b2", "a1")], ["turns", 0, "steps", 0, "parent_id"]),
        ([step("a1"), step("b2", "a1"), step("c3", "b2")], ["turns", 0, "steps", 2, "parent_id"]),
        ([step("a1"), step("b2"), step("c3"), step("d4")], ["turns", 0, "steps"]),
    ],
    ids=[
        "same-id",
        "ends-before-start",
        "own-parent",
        "kind",
        "status",
        "tokens",
        "name",
        "nul",
        "attributes-too-large",
        "cycle",
        "too-deep",
        "too-many",
    ],
)
@override_settings(
    LEARNPORTAL_MAX_STEPS=3, LEARNPORTAL_MAX_STEP_DEPTH=2, LEARNPORTAL_MAX_STEP_ATTRIBUTES_BYTES=256
)
def test_a_step_out_of_bounds_refuses_the_batch_naming_its_place(
    agent: Actor, steps: list[dict[str, Any]], place: list[Any]
) -> None:
    body = {
        "turns": [
            {"correlation_id": "fine", "rated_turn": turn(), "steps": [step("z9")]},
            {"correlation_id": "t-1", "rated_turn": turn(), "steps": steps},
        ]
    }
    response = agent.rest("post", "/api/turns/", body)
    assert response.status_code == 400, response.content
    expected = [place[0], 1, *place[2:]]
    assert expected in [d["loc"] for d in response.json()["details"]]
    assert (Turn.objects.count(), TurnStep.objects.count()) == (0, 0)


@override_settings(LEARNPORTAL_MAX_STEPS=3, LEARNPORTAL_MAX_STEP_DEPTH=2)
def test_the_bounds_count_the_steps_stored_before(agent: Actor) -> None:
    assert send(agent, step("a1"), step("b2", "a1")).status_code == 201
    deeper = send(agent, step("c3", "b2"))
    assert deeper.status_code == 400
    assert [d["loc"] for d in deeper.json()["details"]] == [["turns", 0, "steps", 0, "parent_id"]]
    more = send(agent, step("c3"), step("d4"))
    assert more.status_code == 400
    assert [d["loc"] for d in more.json()["details"]] == [["turns", 0, "steps"]]
    assert TurnStep.objects.count() == 2


def test_another_projects_turn_is_not_found(agent: Actor) -> None:
    from core.projects.services import project_add

    project_add(slug="beta", name="Beta")
    theirs = token_actor("beta-agent", "agent", project="beta")
    assert send(theirs, step("secret-step")).status_code == 201
    pk = Turn.objects.get(correlation_id="t-1").pk
    response = agent.rest("get", f"/api/turns/{pk}/")
    assert response.status_code == 404
    assert b"secret-step" not in response.content


@pytest.mark.parametrize(
    ("parents", "depths"),
    [
        ({"a": "", "b": "a", "c": "b"}, {"a": 1, "b": 2, "c": 3}),
        ({"c": "b", "b": "a", "a": ""}, {"a": 1, "b": 2, "c": 3}),
        ({"x": "missing", "y": "x"}, {"x": 1, "y": 2}),
        ({"a": "b", "b": "a", "c": "a", "d": ""}, {"d": 1}),
    ],
    ids=["in-order", "children-first", "parent-not-here", "cycle"],
)
def test_a_steps_depth_is_counted_from_the_top_and_a_cycle_has_none(
    parents: dict[str, str], depths: dict[str, int]
) -> None:
    assert step_depths(parents) == depths
