"""The `id` of a message too long to read whole, so that its refusal answers it (`req_id`)."""

from __future__ import annotations

import json

from learnportal_protocol.wire import request_id_of

HEAD_BYTES = 4096  # how much of an over-long body is kept to find its id
_decoder = json.JSONDecoder()


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def request_id_of_head(head: bytes) -> str:
    """The `id` of a JSON object of which only `head`, its first bytes, was read, as
    request_id_of would answer it; "" if a key before it, or the id itself, is cut off.
    The object's keys are decoded in order (the SDK's messages begin with type and id)."""
    text = head.decode("utf-8", errors="ignore")
    at = _skip_space(text, 0)
    if not text.startswith("{", at):
        return ""
    at += 1
    while True:
        try:
            key, at = _decoder.raw_decode(text, _skip_space(text, at))
            at = _skip_space(text, at)
            if not text.startswith(":", at):
                return ""
            value, at = _decoder.raw_decode(text, _skip_space(text, at + 1))
        except ValueError:
            return ""
        if key == "id":
            return request_id_of({"id": value})
        at = _skip_space(text, at)
        if not text.startswith(",", at):
            return ""
        at += 1
