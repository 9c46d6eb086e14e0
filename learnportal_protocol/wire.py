"""Strict parsing of one request envelope from the wire, for every transport."""

from __future__ import annotations

import re
from typing import Any, TypeVar

import jiter
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails

from learnportal_protocol.errors import ErrorCode, LearnError, cut, detail, invalid
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.freejson import TOO_WIDE, wide_integers
from learnportal_protocol.messages import REQUEST_MODELS, Envelope
from learnportal_protocol.models import NAME_LENGTH, NO_CONTROL, NO_NUL, NOT_BLANK

BATCH_FIELDS = ("feedbacks", "experiences")
# What a person reads instead of the regular expression a text failed to match.
PATTERNS = {
    NO_NUL: "may not contain the NUL character (\\u0000)",
    NO_CONTROL: "may not contain control characters (NUL, tab, newline...)",
    NOT_BLANK: "may not be blank, nor contain the NUL character (\\u0000)",
}

Model = TypeVar("Model", bound=BaseModel)
ID_CHARACTERS = re.compile(NO_CONTROL)  # those of an envelope's `id`


def loads_strict(body: bytes | str) -> Any:
    """JSON as the contract (docs/contract.md) reads it: a repeated key, NaN or Infinity is not JSON.

    Integers keep their exact value and `1e400` reads as infinity here; the models refuse
    both where the database could not keep them (protocol.freejson).
    """
    data = body.encode() if isinstance(body, str) else body
    try:
        # Keys repeat from item to item, values seldom: caching only keys reads a batch faster.
        return jiter.from_json(
            data, allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="keys"
        )
    except ValueError as exc:
        raise invalid(f"The body is not valid JSON: {exc}") from None


def parse_body(model: type[Model], body: bytes | str, *, loc: tuple[str, ...] = ()) -> Model:
    """Parse a JSON body strictly into `model`, or raise `invalid` naming every bad field."""
    raw = loads_strict(body)
    try:
        parsed = model.model_validate_json(body)
    except ValidationError as exc:
        raise invalid_from(exc, loc) from None
    refuse_wide_integers(raw, loc)
    return parsed


def refuse_wide_integers(raw: Any, loc: tuple[str | int, ...] = ()) -> None:
    """Refuse, naming each, the integers wider than 64 bits that the models let through: a
    number field takes one as a float, but the request as sent (hashed for safe retries, kept
    for audit) must be storable. Run after the models, which refuse those past a float's range
    as not finite; orjson says in C whether there is any, so the walk runs only when one is.
    The client's copy of the protocol (clients/python) has no orjson: it walks."""
    try:
        import orjson
    except ImportError:
        places = wide_integers(raw)
    else:
        try:
            orjson.dumps(raw)
            return
        except TypeError:
            places = wide_integers(raw)
    if places:
        details = [detail([*loc, *place], TOO_WIDE) for place in places]
        raise invalid(summarize(details), details) from None


def invalid_from(
    exc: ValidationError, loc: tuple[str, ...] = (), *, read_from_json: bool = False
) -> LearnError:
    """The one `invalid` error for a pydantic refusal; `loc` prefixes every place it names.
    `read_from_json`: the values refused were read from JSON (see `worded_for_json`)."""
    details = [
        {**d, "loc": [*loc, *d["loc"]]}
        for d in validation_details(exc, read_from_json=read_from_json)
    ]
    return invalid(summarize(details), details)


def request_id_of(raw: Any) -> str:
    """The `id` to echo as `req_id`: only one a request may carry (at most NAME_LENGTH characters,
    no control characters), so that an error reply is never larger than what it refuses."""
    request_id = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(request_id, str) and len(request_id) <= NAME_LENGTH:
        return request_id if ID_CHARACTERS.match(request_id) else ""
    return ""


def parse_request(body: bytes | str, *, max_batch: int) -> Envelope:
    """Parse and validate one `learn/*` request; raise LearnError naming every bad field."""
    raw = loads_strict(body)
    if not isinstance(raw, dict):
        raise invalid("The body must be a JSON object (one learn/* request envelope).")
    message_type = raw.get("type")
    if message_type is None:
        raise invalid("The request has no type.", [detail(["type"], "Field required")])
    model = REQUEST_MODELS.get(message_type) if isinstance(message_type, str) else None
    if model is None:
        raise LearnError(
            ErrorCode.UNKNOWN_TYPE,
            f"{cut(repr(message_type), NAME_LENGTH)} is not a learn/* request type; "
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
        # The values read above, not the body again: the JSON is read once (see the models'
        # note on the few fields whose JSON form strict Python mode would otherwise refuse).
        request = model.model_validate(raw)
    except ValidationError as exc:
        raise invalid_from(exc, read_from_json=True) from None
    refuse_wide_integers(raw)
    request._sent = raw
    return request


def worded_for_json(title: str, refused: list[ErrorDetails]) -> ValidationError:
    """A refusal of values read from JSON, worded as pydantic words it for JSON input ("an
    object", "an array" rather than "a dictionary", "a list")."""
    errors: list[InitErrorDetails] = []
    for error in refused:
        kind = error["type"]
        if kind == "float_type" and type(error["input"]) is int:
            # An integer too wide for a float (a 1 and 400 zeros): read from JSON by pydantic
            # it is infinity, from these values it does not convert.
            kind = "finite_number"
        line = InitErrorDetails(type=kind, loc=error["loc"], input=error["input"])
        if "ctx" in error:
            line["ctx"] = error["ctx"]
        errors.append(line)
    return ValidationError.from_exception_data(title, errors, input_type="json")


def validation_details(
    exc: ValidationError, *, read_from_json: bool = False
) -> list[dict[str, Any]]:
    if read_from_json:
        exc = worded_for_json(exc.title, exc.errors(include_url=False))
    details = []
    for error in exc.errors(include_url=False, include_input=False):
        loc = list(error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        context = error.get("ctx") or {}
        cause = context.get("error")
        if isinstance(cause, FieldError):
            loc.extend(cause.loc)
        if error["type"] == "string_pattern_mismatch" and context.get("pattern") in PATTERNS:
            message = f"Text {PATTERNS[context['pattern']]}"
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
