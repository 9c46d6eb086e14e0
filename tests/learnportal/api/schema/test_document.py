"""The OpenAPI document itself: valid, and saying each endpoint's errors and limits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

if TYPE_CHECKING:
    from pathlib import Path

UNSAFE = {"post", "put", "patch", "delete"}


@pytest.fixture
def document(db: None) -> dict[str, Any]:
    return APIClient().get("/api/schema/", {"format": "json"}).json()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    name = schema["$ref"].rsplit("/", 1)[-1]
    return document["components"]["schemas"][name]


def test_the_document_is_valid_openapi_and_generates_without_warnings(
    db: None, tmp_path: Path
) -> None:
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))


def test_every_operation_documents_401_429_and_503_as_the_learn_error_envelope(
    document: dict[str, Any],
) -> None:
    for path, method, operation in operations(document):
        responses = operation["responses"]
        for status in ("401", "429", "503"):
            schema = responses[status]["content"]["application/json"]["schema"]
            assert schema["allOf"][0] == {"$ref": "#/components/schemas/LearnErrorEnvelope"}, (
                path,
                method,
                status,
            )
        assert "Retry-After" in responses["429"]["headers"]
        assert responses["503"]["headers"]["Retry-After"]["required"] is True


def test_each_error_status_names_its_codes(document: dict[str, Any]) -> None:
    responses = document["paths"]["/api/learn/"]["post"]["responses"]
    code = responses["403"]["content"]["application/json"]["schema"]["allOf"][1]
    assert code == {"properties": {"code": {"enum": ["forbidden", "strategy_not_allowed"]}}}


def test_every_write_can_be_forbidden_and_every_body_invalid_or_too_large(
    document: dict[str, Any],
) -> None:
    for _, method, operation in operations(document):
        if method in UNSAFE:
            assert "403" in operation["responses"]
        if "requestBody" in operation:
            assert {"400", "413"} <= set(operation["responses"])


def test_the_turns_list_documents_the_page_it_answers(document: dict[str, Any]) -> None:
    answer = document["paths"]["/api/turns/"]["get"]["responses"]["200"]
    page = resolve(document, answer["content"]["application/json"]["schema"])

    assert set(page["required"]) == {"next", "previous", "results"}
    assert page["properties"]["results"]["type"] == "array"


def test_query_parameters_are_typed_and_bounded(document: dict[str, Any]) -> None:
    parameters = {p["name"]: p for p in document["paths"]["/api/turns/"]["get"]["parameters"]}

    assert parameters["limit"]["schema"] == {
        "default": 50,
        "maximum": 500,
        "minimum": 1,
        "type": "integer",
    }
    assert parameters["unrated"]["schema"]["type"] == "boolean"


def test_request_bodies_carry_the_limits_of_the_models_the_views_validate_with(
    document: dict[str, Any],
) -> None:
    body = document["paths"]["/api/turns/"]["post"]["requestBody"]
    assert body["required"] is True
    turn = document["components"]["schemas"]["TurnItem"]["properties"]["correlation_id"]
    assert (turn["minLength"], turn["maxLength"]) == (1, 200)
    learn = document["paths"]["/api/learn/"]["post"]["requestBody"]
    assert learn["required"] is True
    feedback = document["components"]["schemas"]["Feedback"]["properties"]["score"]
    assert (feedback["minimum"], feedback["maximum"]) == (-1.0, 1.0)


def test_a_learn_proposal_is_documented_as_the_proposal_the_host_reads(
    document: dict[str, Any],
) -> None:
    apply = document["components"]["schemas"]["LearnRefinementApplyRequest"]
    assert apply["properties"]["proposal"] == {"$ref": "#/components/schemas/ProposalInput"}
    variants = document["components"]["schemas"]["ProposalInput"]["oneOf"]
    kinds = {(v["properties"]["target"]["const"], v["properties"]["op"]["const"]) for v in variants}
    assert ("skill_file", "delete") in kinds
    assert ("router_weight", "update") in kinds
