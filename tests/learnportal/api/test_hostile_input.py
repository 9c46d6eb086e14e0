"""Hostile JSON is `invalid`, names the field and changes nothing, on every database and transport.

What the database cannot keep exactly (a NUL character, an integer wider than 64 bits, a number
that overflows, a text longer than its column) is refused before anything is written, so that
SQLite never keeps what PostgreSQL refuses, and no input reaches a 500 or a retryable 503.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from learnportal_protocol.models import TIMESTAMP_MAX
from tests.builders import experience, experience_req, feedback, feedback_req, stored, turn
from tests.harness import WS_TIMEOUT, Actor, Send, ws_communicator

HUGE = 2**64 + 1  # wider than any 64-bit integer


def raw_json(body: dict[str, Any], placeholder: str, raw: str) -> bytes:
    """`body` as JSON text with the string `placeholder` replaced by raw JSON text."""
    return orjson.dumps(body).replace(f'"{placeholder}"'.encode(), raw.encode())


def locs(reply: dict[str, Any]) -> list[list[Any]]:
    return [d["loc"] for d in reply["details"]]


def assert_invalid(status: int, reply: dict[str, Any], loc: list[Any]) -> None:
    assert (status, reply["code"]) == (400, "invalid"), reply
    assert loc in locs(reply), reply["details"]


WIDE_INTEGER_PLACES = [
    (experience(state={"n": "@"}), ["experiences", 0, "state", "n"]),
    (experience(next_state={"deep": [1, "@"]}), ["experiences", 0, "next_state", "deep", 1]),
    (
        experience(action={"component_name": "c", "input": {"q": "@"}}),
        ["experiences", 0, "action", "input", "q"],
    ),
]


@pytest.mark.parametrize(("item", "loc"), WIDE_INTEGER_PLACES)
def test_an_integer_wider_than_64_bits_in_free_json_is_invalid(
    transport: Send, agent: Actor, item: dict[str, Any], loc: list[Any]
) -> None:
    body = raw_json(experience_req(item), "@", str(HUGE))
    status, reply = transport(agent, body)
    assert_invalid(status, reply, loc)
    assert stored()["experience"] == 0


def test_an_integer_wider_than_64_bits_in_a_turns_environment_is_invalid(
    transport: Send, agent: Actor
) -> None:
    item = feedback(component_name="c", rated_turn=turn(environment={"seed": "@"}))
    status, reply = transport(agent, raw_json(feedback_req(item), "@", str(-HUGE)))
    assert_invalid(status, reply, ["feedbacks", 0, "rated_turn", "environment", "seed"])
    assert stored()["feedback"] == 0


def test_an_integer_wider_than_64_bits_in_a_proposals_extra_key_is_invalid(
    transport: Send, agent: Actor
) -> None:
    proposal = {
        "target": "router_weight",
        "op": "update",
        "path": "router.weights.c",
        "old_value": 0.5,
        "new_value": 0.55,
        "note": "@",
    }
    body = {"type": "learn/refinement/review/req", "id": "r1", "proposal": proposal}
    status, reply = transport(agent, raw_json(body, "@", str(HUGE)))
    assert_invalid(status, reply, ["proposal", "note"])


# Typed number fields take an integer where a float is expected, so a wide one validated as a
# float; the request as sent could then be neither hashed for retries nor stored.
WIDE_INTEGER_TYPED_PLACES = [
    (experience_req(experience(reward="@")), ["experiences", 0, "reward"]),
    (experience_req(experience(ts="@")), ["experiences", 0, "ts"]),
    (
        experience_req(experience(action={"component_name": "c", "duration_ms": "@"})),
        ["experiences", 0, "action", "duration_ms"],
    ),
    (feedback_req(feedback(source="self", ts="@")), ["feedbacks", 0, "ts"]),
    ({"type": "learn/stats/req", "id": "s1", "ts": "@"}, ["ts"]),
]


@pytest.mark.parametrize("wide", [HUGE, -HUGE, 10**30])
@pytest.mark.parametrize(("body", "loc"), WIDE_INTEGER_TYPED_PLACES)
def test_an_integer_wider_than_64_bits_in_a_number_field_is_invalid_naming_it(
    transport: Send, agent: Actor, body: dict[str, Any], loc: list[Any], wide: int
) -> None:
    status, reply = transport(agent, raw_json(body, "@", str(wide)))
    assert (status, reply["code"]) == (400, "invalid"), reply
    assert loc in locs(reply), reply["details"]
    assert stored() == {"feedback": 0, "experience": 0, "turn": 0, "components": 0}


@pytest.mark.parametrize("field", ["score", "confidence"])
def test_an_integer_wider_than_64_bits_in_a_bounded_field_is_invalid_naming_it(
    transport: Send, agent: Actor, field: str
) -> None:
    body = raw_json(feedback_req(feedback(source="self", **{field: "@"})), "@", str(HUGE))
    status, reply = transport(agent, body)
    assert_invalid(status, reply, ["feedbacks", 0, field])


def test_the_widest_integers_a_number_field_keeps_are_stored(transport: Send, agent: Actor) -> None:
    item = experience(
        component="c", action={"duration_ms": 2**63 - 1}, reward=-(2**63), step=2**63 - 1
    )
    status, reply = transport(agent, experience_req(item))
    assert (status, reply.get("stored")) == (200, 1), reply
    assert stored()["experience"] == 1


def test_an_integer_wider_than_64_bits_in_a_rest_body_is_invalid_naming_it(agent: Actor) -> None:
    edit = {
        "target": "skill_file",
        "op": "create",
        "path": "learnings/s1/SKILL.md",
        "new_value": "# Skill",
        "note": "@",  # a key of the client's own, kept with the edit
    }
    body = {"description": "a run", "edits": [edit]}
    response = agent.client.post(
        "/api/steps/s1/runs/", raw_json(body, "@", str(HUGE)), content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert ["edits", 0, "note"] in locs(response.json())


PAST_YEAR_9999 = [
    (experience_req(experience(ts=1e12)), ["experiences", 0, "ts"]),
    (feedback_req(feedback(source="self", ts=1e12)), ["feedbacks", 0, "ts"]),
    (feedback_req(feedback(source="self", ts=TIMESTAMP_MAX + 1)), ["feedbacks", 0, "ts"]),
    ({"type": "learn/stats/req", "id": "s2", "ts": 1e12}, ["ts"]),
]


@pytest.mark.parametrize(("body", "loc"), PAST_YEAR_9999)
def test_a_time_past_the_year_9999_is_invalid_naming_it(
    transport: Send, agent: Actor, body: dict[str, Any], loc: list[Any]
) -> None:
    status, reply = transport(agent, body)
    assert_invalid(status, reply, loc)
    assert stored() == {"feedback": 0, "experience": 0, "turn": 0, "components": 0}


def test_the_last_second_of_the_year_9999_is_a_time(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, feedback_req(feedback(source="self", ts=TIMESTAMP_MAX)))
    assert (status, reply.get("recorded")) == (200, 1), reply


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" + "0" * 400])
def test_an_overflowing_number_in_free_json_is_invalid(
    transport: Send, agent: Actor, number: str
) -> None:
    body = raw_json(experience_req(experience(state={"x": ["@"]})), "@", number)
    status, reply = transport(agent, body)
    assert_invalid(status, reply, ["experiences", 0, "state", "x", 0])


NUL_PLACES = [
    (feedback(comment="a\u0000b"), ["feedbacks", 0, "comment"]),
    (feedback(correlation_id="t\u00001"), ["feedbacks", 0, "correlation_id"]),
    (
        feedback(component_name="c", rated_turn=turn(response="ok\u0000")),
        ["feedbacks", 0, "rated_turn", "response"],
    ),
    (
        feedback(component_name="c", rated_turn=turn(environment={"k": "v\u0000"})),
        ["feedbacks", 0, "rated_turn", "environment", "k"],
    ),
]


@pytest.mark.parametrize(("item", "loc"), NUL_PLACES)
def test_a_nul_character_in_any_text_is_invalid_and_named(
    transport: Send, agent: Actor, item: dict[str, Any], loc: list[Any]
) -> None:
    status, reply = transport(agent, feedback_req(item))
    assert_invalid(status, reply, loc)
    assert stored() == {"feedback": 0, "experience": 0, "turn": 0, "components": 0}


def test_a_nul_character_in_a_free_json_key_is_invalid(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, experience_req(experience(state={"k\u0000": 1})))
    assert_invalid(status, reply, ["experiences", 0, "state"])


LONG_PLACES = [
    (feedback(rated_turn=turn(model="m" * 386)), ["feedbacks", 0, "rated_turn", "model"]),
    (feedback(rated_turn=turn(version="v" * 201)), ["feedbacks", 0, "rated_turn", "version"]),
    (feedback(annotator_id="a" * 151), ["feedbacks", 0, "annotator_id"]),
    (feedback(component_name="c" * 201), ["feedbacks", 0, "component_name"]),
]


@pytest.mark.parametrize(("item", "loc"), LONG_PLACES)
def test_a_text_longer_than_its_column_is_invalid_on_every_database(
    transport: Send, agent: Actor, item: dict[str, Any], loc: list[Any]
) -> None:
    status, reply = transport(agent, feedback_req(item))
    assert_invalid(status, reply, loc)
    assert stored()["feedback"] == 0


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"type": "learn/refinement/plan/req", "scope": "s" * 65}, ["scope"]),
        ({"type": "learn/adapt/req", "component_name": "c" * 201}, ["component_name"]),
        ({"type": "learn/refinement/rollback/req", "refinement_id": "r" * 65}, ["refinement_id"]),
    ],
)
def test_request_fields_are_bounded_by_the_columns_they_reach(
    transport: Send, agent: Actor, body: dict[str, Any], loc: list[Any]
) -> None:
    status, reply = transport(agent, body)
    assert_invalid(status, reply, loc)


@pytest.mark.parametrize("name", ["two\nlines", "tab\there", "bell\u0007"])
def test_a_component_name_with_control_characters_is_invalid(
    transport: Send, agent: Actor, name: str
) -> None:
    status, reply = transport(agent, experience_req(experience(component=name)))
    assert_invalid(status, reply, ["experiences", 0, "action", "component_name"])
    assert "control characters" in reply["message"]


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "learn/feedback/req", "type": "learn/stats/req", "feedbacks": []}',
        '{"type": "learn/feedback/req", "feedbacks": [{"polarity": "positive", '
        '"source": "env", "source": "self"}]}',
        '{"type": "learn/experience/req", "experiences": [{"state": {"a": 1, "a": 2}}]}',
    ],
    ids=["envelope", "feedback", "free-json"],
)
def test_a_repeated_key_anywhere_is_invalid(transport: Send, env: Actor, text: str) -> None:
    status, reply = transport(env, text.encode())
    assert (status, reply["code"]) == (400, "invalid"), reply
    assert "duplicate key" in reply["message"]
    assert stored()["feedback"] == 0


@pytest.mark.django_db(transaction=True)
async def test_a_websocket_answers_hostile_frames_and_stays_open(agent: Actor) -> None:
    communicator = ws_communicator(token=agent.raw_token)
    assert (await communicator.connect(timeout=WS_TIMEOUT))[0]
    hostile = [
        raw_json(experience_req(experience(state={"n": "@"}), id="h1"), "@", str(HUGE)),
        raw_json(experience_req(experience(state={"n": "@"}), id="h2"), "@", "1e400"),
        orjson.dumps(feedback_req(feedback(comment="\u0000"), id="h3")),
        b'{"type": "learn/stats/req", "id": "h4", "id": "h5"}',
        raw_json(experience_req(experience(reward="@"), id="h6"), "@", str(HUGE)),
        raw_json(feedback_req(feedback(source="self", ts="@"), id="h7"), "@", str(-HUGE)),
    ]
    for frame in hostile:
        await communicator.send_to(text_data=frame.decode())
        reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
        assert (reply["type"], reply["code"]) == ("learn/error", "invalid"), reply
    await communicator.send_json_to({"type": "learn/stats/req", "id": "after"})
    reply = await communicator.receive_json_from(timeout=WS_TIMEOUT)
    assert (reply["type"], reply["req_id"]) == ("learn/stats/resp", "after")
    await communicator.disconnect()
