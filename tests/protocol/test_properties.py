"""Properties of the protocol's models and of strict parsing, over many drawn messages.

Seeded (derandomized) and bounded: a few hundred examples in all, the same ones every run.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from learnportal_protocol import REQUEST_MODELS, RESPONSE_MODELS, parse_request
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.models import ComponentPerformanceRecord, Experience, Feedback
from tests.protocol.strategies import instances, json_values, wire_dicts
from tests.protocol.wire_examples import REQUEST_EXAMPLES

MAX_BATCH = 4
PARSE_CODES = {ErrorCode.INVALID, ErrorCode.UNKNOWN_TYPE, ErrorCode.TOO_LARGE}
FREE_JSON = ("state", "next_state", "input", "environment", "proposal")

bounded = settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def wire(model: Any) -> bytes:
    return orjson.dumps(model.model_dump(mode="json"))


# --- any valid model round-trips ------------------------------------------------------------

REQUESTS = st.sampled_from(sorted(REQUEST_MODELS)).flatmap(
    lambda kind: instances(REQUEST_MODELS[kind])
)
RESPONSES = st.sampled_from(sorted(RESPONSE_MODELS)).flatmap(
    lambda kind: instances(RESPONSE_MODELS[kind])
)


@bounded
@given(REQUESTS)
def test_any_valid_request_round_trips_through_its_json(message: Any) -> None:
    parsed = parse_request(wire(message), max_batch=10)

    assert type(parsed) is type(message)
    # (not `==`: the parsed one also keeps what was sent, for batch details)
    assert parsed.model_dump() == message.model_dump()
    assert wire(parsed) == wire(message)


@bounded
@given(RESPONSES)
def test_any_valid_response_round_trips_through_its_json(response: Any) -> None:
    parsed = type(response).model_validate_json(wire(response))

    assert parsed == response


@bounded
@pytest.mark.parametrize("model", [Feedback, Experience, ComponentPerformanceRecord])
@given(data=st.data())
def test_any_valid_data_model_round_trips_through_its_json(model: Any, data: Any) -> None:
    item = data.draw(instances(model))

    assert model.model_validate_json(wire(item)) == item


# --- any mutation of a valid request parses or is refused with a protocol code --------------

PATH = list[str | int]


def paths(value: Any, path: PATH | None = None) -> list[PATH]:
    """Every place in a JSON value, the root first."""
    path = path or []
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, [*path, index])
    return found


def get(value: Any, path: PATH) -> Any:
    for part in path:
        value = value[part]
    return value


def replaced(value: Any, path: PATH, new: Any) -> Any:
    if not path:
        return new
    head, *rest = path
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = replaced(value[head], rest, new)
    return copy


def dropped(value: Any, path: PATH) -> Any:
    parent = get(value, path[:-1])
    copy: Any = dict(parent) if isinstance(parent, dict) else list(parent)
    del copy[path[-1]]
    return replaced(value, path[:-1], copy)


OTHER_TYPES = st.sampled_from([None, True, 0, -1, 0.5, "0.5", "", [], {}, [1, 2], {"k": "v"}])
OUT_OF_RANGE = st.sampled_from(
    [2**63, -(2**63) - 1, 2**64, 2**70, 1e308, -1e308, 5e-324, -1, 1.5, 10**400, float("nan")]
)
HUGE_TEXT = st.sampled_from(["x" * 100_000, "\x00" * 10, "\ud800", "é" * 5000])
GARBAGE = st.recursive(
    json_values,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=30,
)


@st.composite
def mutations(draw: st.DrawFn, envelope: dict[str, Any]) -> Any:
    places = paths(envelope)
    kind = draw(
        st.sampled_from(["drop", "retype", "unknown key", "number", "text", "garbage", "grow"])
    )
    fitting = {
        "drop": [p for p in places if p],
        "unknown key": [p for p in places if isinstance(get(envelope, p), dict)],
        "garbage": [p for p in places if p and p[-1] in FREE_JSON],
        "grow": [p for p in places if p in (["feedbacks"], ["experiences"])],
    }.get(kind) or places
    path = draw(st.sampled_from(fitting))
    target = get(envelope, path)
    if kind == "drop" and path:
        return dropped(envelope, path)
    if kind == "unknown key" and isinstance(target, dict):
        return replaced(envelope, path, {**target, draw(st.text(max_size=10)): draw(json_values)})
    if kind == "number":
        return replaced(envelope, path, draw(OUT_OF_RANGE))
    if kind == "text":
        return replaced(envelope, path, draw(HUGE_TEXT))
    if kind == "garbage":
        return replaced(envelope, path, draw(GARBAGE))
    if kind == "grow" and isinstance(target, list):
        return replaced(envelope, path, target * (MAX_BATCH + 1) or [{}] * (MAX_BATCH + 1))
    return replaced(envelope, path, draw(OTHER_TYPES))


def encode(value: Any) -> bytes:
    # The standard library writes what orjson will not: NaN, integers past 64 bits, lone
    # surrogates (escaped), so that the parser meets them.
    return json.dumps(value).encode()


VALID_ENVELOPES = st.one_of(
    st.sampled_from([json.loads(text) for text in REQUEST_EXAMPLES.values()]),
    st.sampled_from(sorted(REQUEST_MODELS)).flatmap(
        lambda kind: wire_dicts(REQUEST_MODELS[kind]).map(lambda d: {**d, "type": kind})
    ),
)


def parses_or_is_refused(body: bytes) -> None:
    try:
        parse_request(body, max_batch=MAX_BATCH)
    except LearnError as error:
        assert error.code in PARSE_CODES, error.code
        assert error.message


def grown(kind: str, field: str) -> dict[str, Any]:
    envelope = json.loads(REQUEST_EXAMPLES[kind])
    return {**envelope, field: envelope[field] * (MAX_BATCH + 1)}


@settings(bounded, max_examples=200)
@given(VALID_ENVELOPES.flatmap(mutations))
@example(grown("learn/feedback/req", "feedbacks"))
@example(grown("learn/experience/req", "experiences"))
def test_any_mutation_of_a_valid_request_parses_or_is_refused_with_a_protocol_code(
    mutated: Any,
) -> None:
    parses_or_is_refused(encode(mutated))


@bounded
@given(st.sampled_from(list(REQUEST_EXAMPLES.values())), st.data())
def test_any_cut_of_a_valid_request_parses_or_is_refused_with_a_protocol_code(
    text: str, data: Any
) -> None:
    cut = data.draw(st.integers(0, len(text) - 1))

    parses_or_is_refused(text[:cut].encode())
