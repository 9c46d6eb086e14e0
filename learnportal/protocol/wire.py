"""Strict parsing of one request envelope from the wire, for every transport."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from learnportal.protocol.errors import ErrorCode, LearnError, detail, invalid
from learnportal.protocol.fielderror import FieldError
from learnportal.protocol.messages import REQUEST_MODELS, Envelope

BATCH_FIELDS = ("feedbacks", "experiences")


def request_id_of(raw: Any) -> str:
    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
        return raw["id"]
    return ""


def parse_request(body: bytes | str, *, max_batch: int) -> Envelope:
    """Parse and validate one `learn/*` request; raise LearnError naming every bad field."""
    try:
        raw = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise invalid(f"The body is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise invalid("The body must be a JSON object (one learn/* request envelope).")
    message_type = raw.get("type")
    if message_type is None:
        raise invalid("The request has no type.", [detail(["type"], "Field required")])
    model = REQUEST_MODELS.get(message_type) if isinstance(message_type, str) else None
    if model is None:
        raise LearnError(
            ErrorCode.UNKNOWN_TYPE,
            f"{message_type!r} is not a learn/* request type; "
            f"known types: {', '.join(REQUEST_MODELS)}.",
            [detail(["type"], "Unknown request type")],
        )
    for field in BATCH_FIELDS:
        items = raw.get(field)
        if isinstance(items, list) and len(items) > max_batch:
            raise LearnError(
                ErrorCode.TOO_LARGE,
                f"{len(items)} {field} in one request; at most {max_batch} are allowed.",
                [detail([field], f"at most {max_batch} items")],
            )
    try:
        request = model.model_validate_json(body)
    except ValidationError as exc:
        details = validation_details(exc)
        raise invalid(summarize(details), details) from None
    request._sent = raw
    return request


def validation_details(exc: ValidationError) -> list[dict[str, Any]]:
    details = []
    for error in exc.errors(include_url=False, include_input=False):
        loc = list(error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, FieldError):
            loc.append(cause.field)
        details.append(detail(loc, message))
    return details


def summarize(details: list[dict[str, Any]]) -> str:
    shown = "; ".join(f"{format_loc(d['loc'])}: {d['msg']}" for d in details[:3])
    more = f" (and {len(details) - 3} more)" if len(details) > 3 else ""
    noun = "field is" if len(details) == 1 else "fields are"
    return f"{len(details)} {noun} invalid: {shown}{more}"


def format_loc(loc: list[str | int]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "body"
