"""OpenAPI shapes of the envelope endpoint, generated from the protocol's pydantic models."""

from __future__ import annotations

from typing import Annotated, Any, Union

from drf_spectacular.utils import OpenApiResponse
from pydantic import BaseModel, Field, RootModel
from pydantic.json_schema import SkipJsonSchema

from learnportal.protocol.messages import REQUEST_MODELS, RESPONSE_MODELS

LearnRequest = RootModel[
    Annotated[Union[tuple(REQUEST_MODELS.values())], Field(discriminator="type")]  # noqa: UP007
]
LearnRequest.__name__ = "LearnRequest"
LearnResponse = RootModel[
    Annotated[Union[tuple(RESPONSE_MODELS.values())], Field(discriminator="type")]  # noqa: UP007
]
LearnResponse.__name__ = "LearnResponse"


class ErrorDetail(BaseModel):
    loc: list[str | int]
    msg: str


class LearnErrorEnvelope(BaseModel):
    type: str = "learn/error"
    id: str
    version: str = "1.0"
    ts: float
    req_id: str = ""
    code: str = Field(description="invalid, unknown_type, unauthenticated, forbidden, ...")
    message: str
    details: list[ErrorDetail] = []
    retry_after: int | SkipJsonSchema[None] = Field(
        default=None,
        ge=1,
        description="rate_limited and unavailable only: seconds to wait before retrying (the "
        "Retry-After header over HTTP); absent from other errors",
    )


class Capability(BaseModel):
    capability: str = "learning"
    namespace: str = "learn/*"
    plugin: str = "LearnPlugin"
    version: str = "1.0"
    messages: list[str]


LEARN_REQUEST: Any = LearnRequest
LEARN_RESPONSE: Any = LearnResponse
CAPABILITY_SCHEMA: Any = Capability
ERROR_RESPONSES: dict[int, Any] = {
    status: OpenApiResponse(LearnErrorEnvelope, description=description)
    for status, description in {
        400: "invalid, unknown_type",
        401: "unauthenticated",
        403: "forbidden, strategy_not_allowed",
        404: "not_found",
        409: "conflict",
        413: "too_large",
        429: "quota_exceeded, rate_limited",
        503: "unavailable",
    }.items()
}
