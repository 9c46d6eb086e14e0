"""The OpenAPI document: envelope shapes from the protocol's models, and every error written once.

Views declare their success answers and the refusals particular to them (`403` for a role,
`404` for an unknown id, `409` for a conflict) as plain `OpenApiResponse(description=...)`.
`document_errors`, a drf-spectacular postprocessing hook, then gives every error response the one
`learn/error` envelope and adds what any endpoint can answer: 401, 429 and 503 everywhere, 403 on
every write (a session without its CSRF token), 400 wherever there is a body or a query parameter
to refuse, and 413 wherever there is a body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel
from pydantic.json_schema import SkipJsonSchema

from core.inputs import NOT_BLANK
from learnportal_protocol.errors import HTTP_STATUS, ErrorCode
from learnportal_protocol.messages import (
    REQUEST_MODELS,
    RESPONSE_MODELS,
    Envelope,
    LearnRefinementApplyRequest,
    LearnRefinementReviewRequest,
    Response,
)
from refinement.proposals import ProposalInput

if TYPE_CHECKING:
    # A Union built from the tables at run time is no type to mypy: to it, any envelope.
    AnyRequest = Envelope
    AnyResponse = Response
else:
    AnyRequest = Union[tuple(REQUEST_MODELS.values())]  # noqa: UP007
    AnyResponse = Union[tuple(RESPONSE_MODELS.values())]  # noqa: UP007


class LearnRequest(RootModel[Annotated[AnyRequest, Field(discriminator="type")]]):
    """One learn/* request envelope; its `type` says which."""

    model_config = ConfigDict(json_schema_extra={"required": ["type"]})


LearnResponse = RootModel[Annotated[AnyResponse, Field(discriminator="type")]]
LearnResponse.__name__ = "LearnResponse"

# The codes a client can meet over HTTP (the host raises no `not_implemented`).
WIRE_CODES = [code for code in ErrorCode if code is not ErrorCode.NOT_IMPLEMENTED]


class ErrorDetail(BaseModel):
    loc: list[str | int] = Field(description="where: a field's path, e.g. feedbacks, 0, score")
    msg: str


class LearnErrorEnvelope(BaseModel):
    type: Annotated[str, Field(json_schema_extra={"const": "learn/error"})]
    id: str
    version: str
    ts: float
    req_id: str = Field(description="the request's id, or empty when it had none")
    code: Annotated[str, Field(json_schema_extra={"enum": [code.value for code in WIRE_CODES]})]
    message: str = Field(description="for a person")
    details: list[ErrorDetail]
    retry_after: int | SkipJsonSchema[None] = Field(
        default=None,
        ge=1,
        description="rate_limited and unavailable only: seconds to wait before retrying (the "
        "Retry-After header over HTTP); absent from other errors",
    )


LEARN_REQUEST: Any = LearnRequest
LEARN_RESPONSE: Any = LearnResponse

# What each status means, whichever endpoint answers it.
GENERAL: dict[int, str] = {
    400: "a field, query parameter or path parameter is out of its rules (details name it)",
    401: "no token or session, or a revoked token",
    403: "the principal's role may not do this, or a session's write has no CSRF token",
    404: "no such object",
    409: "the request conflicts with the current state",
    413: "the body is over the size limit, or a batch has too many items",
    429: "too many requests from this principal (rate_limited, with Retry-After)",
    503: "the database is busy or down; retry after Retry-After seconds",
}
RETRY_AFTER = {
    "schema": {"type": "integer", "minimum": 1},
    "description": "seconds to wait before retrying",
}
# quota_exceeded is a 429 too, and waiting does not free a quota: it carries no Retry-After.
HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"schema": {"type": "string"}, "required": True}},
    429: {"Retry-After": {**RETRY_AFTER, "required": False}},
    503: {"Retry-After": {**RETRY_AFTER, "required": True}},
}
EVERYWHERE = (401, 429, 503)
UNSAFE = frozenset({"post", "put", "patch", "delete"})
ERROR_REF = {"$ref": "#/components/schemas/LearnErrorEnvelope"}


def codes_for(status: int) -> list[str]:
    return [code.value for code in WIRE_CODES if HTTP_STATUS[code] == status]


def error_statuses(method: str, operation: dict[str, Any]) -> set[int]:
    """The error statuses an operation can answer: its own and those every endpoint can."""
    statuses = {int(status) for status in operation.get("responses", {}) if int(status) >= 400}
    statuses.update(EVERYWHERE)
    if method in UNSAFE:
        statuses.add(403)
    if "requestBody" in operation:
        statuses.update((400, 413))
    if any(parameter["in"] == "query" for parameter in operation.get("parameters", [])):
        statuses.add(400)
    return statuses


def error_response(status: int, declared: dict[str, Any] | None) -> dict[str, Any]:
    particular = (declared or {}).get("description", "")
    codes = codes_for(status)
    description = f"{', '.join(codes)}: {particular or GENERAL[status]}"
    response: dict[str, Any] = {
        "description": description,
        "content": {
            "application/json": {
                "schema": {"allOf": [ERROR_REF, {"properties": {"code": {"enum": codes}}}]}
            }
        },
    }
    if status in HEADERS:
        response["headers"] = HEADERS[status]
    return response


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


# Rules the protocol's models enforce in validators, which their JSON schema cannot carry.
FEEDBACK_RULES = [
    {
        "if": {"properties": {"polarity": {"const": "corrective"}}, "required": ["polarity"]},
        "then": {
            "properties": {"correction": {"type": "string", "pattern": NOT_BLANK}},
            "required": ["correction"],
        },
    },
    {
        "if": {
            "properties": {"correction_span": {"type": "array"}},
            "required": ["correction_span"],
        },
        "then": {"properties": {"rated_turn": ref("RatedTurn")}, "required": ["rated_turn"]},
    },
]
SPAN_ITEM = {"type": "integer", "minimum": 0}


def add_model_rules(components: dict[str, Any]) -> None:
    """Say in the document what the models check beyond their fields' types."""
    feedback = components.get("Feedback")
    if feedback is not None:
        feedback["allOf"] = FEEDBACK_RULES
        span = feedback["properties"]["correction_span"]["anyOf"][0]
        span["prefixItems"] = [SPAN_ITEM, SPAN_ITEM]
    # A proposal travels as free JSON in the protocol's models; the host reads it as a
    # ProposalInput (refinement.proposals), so that is its schema.
    proposal = ProposalInput.model_json_schema(ref_template=ref("{model}")["$ref"])
    components.update(proposal.pop("$defs", {}))
    components["ProposalInput"] = proposal
    for model in (LearnRefinementApplyRequest, LearnRefinementReviewRequest):
        schema = components.get(model.__name__)
        if schema is not None:
            schema["properties"]["proposal"] = ref("ProposalInput")


def require_message_type(components: dict[str, Any]) -> None:
    """A request envelope must name its `type` (the wire parser refuses one without)."""
    for model in REQUEST_MODELS.values():
        schema = components.get(model.__name__)
        if schema is not None and "type" not in schema.get("required", []):
            schema["required"] = ["type", *schema.get("required", [])]


def require_alternatives(operation: dict[str, Any], components: dict[str, Any]) -> None:
    """A body whose model has no required field of its own but requires one in each of its
    alternatives (`oneOf`: a turn or a comparison, say) must be sent: say so, as the document
    says it of a model with a required field."""
    body = operation.get("requestBody")
    if body is None or body.get("required"):
        return
    for content in body.get("content", {}).values():
        name = content.get("schema", {}).get("$ref", "").rpartition("/")[2]
        branches = components.get(name, {}).get("oneOf", [])
        if branches and all(branch.get("required") for branch in branches):
            body["required"] = True


def document_errors(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    components = result.setdefault("components", {}).setdefault("schemas", {})
    envelope = LearnErrorEnvelope.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(envelope.pop("$defs", {}))
    components["LearnErrorEnvelope"] = envelope
    require_message_type(components)
    add_model_rules(components)
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            require_alternatives(operation, components)
            responses = operation.setdefault("responses", {})
            for status in sorted(error_statuses(method, operation)):
                responses[str(status)] = error_response(status, responses.get(str(status)))
            operation["responses"] = dict(sorted(responses.items()))
    return result
