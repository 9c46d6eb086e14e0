"""Every wire example of the spec (docs/learning-capability-spec.txt) parses into its model, and the models say
everything it says."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from learnportal_protocol import (
    ALL_MESSAGE_TYPES,
    REQUEST_MODELS,
    RESPONSE_MODELS,
    ComponentPerformanceRecord,
    parse_request,
    response_type_for,
)
from tests.protocol.wire_examples import REQUEST_EXAMPLES, RESPONSE_EXAMPLES

# Fields a response model needs that have no default in the spec.
REQUIRED_RESPONSE_FIELDS: dict[str, dict[str, Any]] = {
    "learn/refinement/plan/resp": {"plan_id": "p", "status": "empty"},
    "learn/refinement/apply/resp": {"refinement_id": "r"},
    "learn/refinement/rollback/resp": {"refinement_id": "r"},
}


def assert_contains(actual: Any, expected: Any, where: str = "") -> None:
    """`actual` says everything `expected` says (dicts may carry more keys)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), where
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} is missing"
            assert_contains(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), where
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_contains(a, e, f"{where}[{index}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def test_the_spec_has_an_example_of_every_request_and_the_host_a_model_of_every_message() -> None:
    assert set(REQUEST_EXAMPLES) == set(REQUEST_MODELS)
    assert set(RESPONSE_EXAMPLES) <= set(RESPONSE_MODELS)
    assert len(ALL_MESSAGE_TYPES) == 18
    assert set(ALL_MESSAGE_TYPES) == set(REQUEST_MODELS) | set(RESPONSE_MODELS)


@pytest.mark.parametrize("message_type", sorted(REQUEST_EXAMPLES))
def test_every_request_example_parses_strictly_into_its_model(message_type: str) -> None:
    text = REQUEST_EXAMPLES[message_type]
    request = parse_request(text, max_batch=1000)
    assert type(request) is REQUEST_MODELS[message_type]
    assert_contains(request.model_dump(mode="json"), orjson.loads(text))


@pytest.mark.parametrize("message_type", sorted(REQUEST_EXAMPLES))
def test_every_request_example_parses_from_bytes_too(message_type: str) -> None:
    request = parse_request(REQUEST_EXAMPLES[message_type].encode(), max_batch=1000)
    assert request.type == message_type


@pytest.mark.parametrize("message_type", sorted(RESPONSE_EXAMPLES))
def test_every_response_example_parses_into_its_model(message_type: str) -> None:
    text = RESPONSE_EXAMPLES[message_type]
    response = RESPONSE_MODELS[message_type].model_validate_json(text)
    assert_contains(response.model_dump(mode="json"), orjson.loads(text))


@pytest.mark.parametrize("message_type", sorted(RESPONSE_EXAMPLES))
def test_a_serialized_response_has_every_field_of_the_spec_example(message_type: str) -> None:
    model = RESPONSE_MODELS[message_type]
    response = model(req_id="r1", **REQUIRED_RESPONSE_FIELDS.get(message_type, {}))
    serialized = orjson.loads(orjson.dumps(response.model_dump(mode="json")))
    assert set(orjson.loads(RESPONSE_EXAMPLES[message_type])) <= set(serialized)
    assert serialized["type"] == message_type


def test_the_stats_response_has_the_spec_fields() -> None:
    serialized = RESPONSE_MODELS["learn/stats/resp"](req_id="ls1").model_dump(mode="json")
    assert {"type", "id", "version", "ts", "req_id", "components"} <= set(serialized)
    assert serialized["components"] == []


@pytest.mark.parametrize("message_type", sorted(REQUEST_EXAMPLES))
def test_every_request_type_answers_with_its_resp_type(message_type: str) -> None:
    assert response_type_for(message_type) == message_type.removesuffix("/req") + "/resp"
    assert response_type_for(message_type) in RESPONSE_MODELS


def test_the_adapt_example_records_are_component_performance_records() -> None:
    example = orjson.loads(RESPONSE_EXAMPLES["learn/adapt/resp"])
    for record in example["updated"]:
        parsed = ComponentPerformanceRecord.model_validate_json(orjson.dumps(record))
        assert parsed.model_dump() == record


def test_a_component_performance_record_has_exactly_the_spec_fields_and_defaults() -> None:
    record = ComponentPerformanceRecord(component_name="code_review").model_dump()
    assert record == {
        "component_name": "code_review",
        "calls_total": 0,
        "calls_success": 0,
        "calls_failed": 0,
        "avg_duration_ms": 0.0,
        "avg_score": 0.0,
        "last_called": 0.0,
        "p95_duration_ms": 0.0,
    }
