"""Requests to JSON and replies to models, the same for HTTP, WebSocket and the buffer.

A request is encoded once and its bytes are what every retry sends: the host keys idempotency on
`feedback_id` / `experience_id` and on the content sent, so a retry must not differ. Fields a
caller left unset stay out of the JSON (a feedback without `source` gets the credential's own),
except the ids, which are fixed when an item is made. So is `ts`, the stamp a model takes when
it is made, but it is sent only where the caller set it (or a buffer, on accepting the item):
a kept dict sent again is the same item, not one with a fresh stamp.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from learnportal_client.errors import (
    InvalidError,
    InvalidReplyError,
    LearnError,
    UnavailableError,
)
from learnportal_client.records import TYPED_RESPONSES
from learnportal_protocol.messages import RESPONSE_MODELS, Envelope, Response, response_type_for
from learnportal_protocol.models import Experience, Feedback
from learnportal_protocol.wire import summarize, validation_details

Item = TypeVar("Item", bound=BaseModel)
Answer = TypeVar("Answer", bound=BaseModel)
Stamped = TypeVar("Stamped", Feedback, Experience)
KEPT = ("feedback_id", "experience_id")  # fixed when the item is made, sent every time


def invalid(exc: ValidationError, loc: tuple[str | int, ...] = ()) -> InvalidError:
    """A model the client refused to send, with the details the host would have given."""
    details = [{**d, "loc": [*loc, *d["loc"]]} for d in validation_details(exc)]
    return InvalidError(summarize(details), details)


def model_of(
    model: type[Item], value: Item | Mapping[str, Any], loc: tuple[str | int, ...] = ()
) -> Item:
    """A model as given, or one read from a dict as the host reads JSON (strictly)."""
    if isinstance(value, model):
        return value
    if not isinstance(value, Mapping):
        raise InvalidError(f"{list(loc)}: expected a {model.__name__} or a dict")
    try:
        return model.model_validate_json(encode(value))
    except ValidationError as exc:
        raise invalid(exc, loc) from None
    except ValueError as exc:  # NaN or Infinity in the dict: not JSON
        raise InvalidError(f"{list(loc)}: not JSON: {exc}") from None


def stamped(item: Stamped) -> Stamped:
    """`item` with its `ts` sent: the stamp it took when made, unless its caller set one."""
    if "ts" in item.model_fields_set:
        return item
    return item.model_copy(update={"ts": item.ts})


def item_json(item: BaseModel) -> dict[str, Any]:
    data = item.model_dump(mode="json", exclude_unset=True)
    for name in KEPT:
        if name in type(item).model_fields:
            data[name] = getattr(item, name)
    return data


def request_json(request: Envelope) -> dict[str, Any]:
    """The envelope as sent: its type, id, version and ts, and the fields the caller set."""
    data: dict[str, Any] = {
        "type": request.type,
        "id": request.id,
        "version": request.version,
        "ts": request.ts,
    }
    for name in request.model_fields_set - data.keys():
        value = getattr(request, name)
        if isinstance(value, list):
            data[name] = [item_json(v) if isinstance(v, BaseModel) else v for v in value]
        else:
            data[name] = request.model_dump(mode="json", include={name})[name]
    return data


def build(model: type[Item], **fields: Any) -> Item:
    """A request model from keyword fields, refused here (`invalid`) as the host would refuse it."""
    try:
        return model(**fields)
    except ValidationError as exc:
        raise invalid(exc) from None


def encode(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), allow_nan=False).encode()


def decode(content: bytes | str) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


def error_of(status: int, body: Any, retry_after_header: str | None = None) -> LearnError:
    """A refusal: the host's `learn/error`, or what a reply without one means."""
    header = _seconds(retry_after_header)
    if isinstance(body, dict) and body.get("type") == "learn/error":
        return LearnError.of_envelope(body, status=status, retry_after=header)
    if status in (502, 503, 504):
        return UnavailableError(
            f"HTTP {status} without a learn/error", status=status, retry_after=header
        )
    return InvalidReplyError(f"HTTP {status}: not a learn/* reply", status=status)


def response_of(
    request_type: str, request_id: str, status: int, body: Any, retry_after: str | None = None
) -> Response:
    """The response envelope answering `request_id`, or the LearnError the reply says."""
    if status != 200 or not isinstance(body, dict) or body.get("type") == "learn/error":
        raise error_of(status, body, retry_after)
    expected = response_type_for(request_type)
    if body.get("type") != expected or body.get("req_id") != request_id:
        raise InvalidReplyError(
            f"expected {expected} for {request_id!r}, got {body.get('type')!r} "
            f"for {body.get('req_id')!r}",
        )
    model = TYPED_RESPONSES.get(expected) or RESPONSE_MODELS[expected]
    try:
        return model.model_validate(body, strict=False)
    except ValidationError as exc:
        raise InvalidReplyError(f"the {expected} does not parse: {exc}") from None


def answer_of(model: type[Answer], status: int, body: Any, retry_after: str | None) -> Answer:
    """A REST answer (2xx), or the LearnError its `learn/error` says."""
    if not 200 <= status < 300 or not isinstance(body, dict) or body.get("type") == "learn/error":
        raise error_of(status, body, retry_after)
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise InvalidReplyError(f"the answer does not parse: {exc}") from None


def _seconds(header: str | None) -> float | None:
    try:
        return None if header is None else max(0.0, float(header))
    except ValueError:
        return None
