"""The id of a message cut off after its first bytes, for the refusal of a body too long."""

from __future__ import annotations

import orjson

from learnportal.a2e.truncated import request_id_of_head


def test_the_id_is_found_before_the_cut() -> None:
    body = orjson.dumps({"type": "learn/experience/req", "id": "e-1", "experiences": ["x" * 99]})
    assert request_id_of_head(body[:60]) == "e-1"


def test_a_nested_id_is_not_the_messages() -> None:
    body = b'{"type": "t", "meta": {"id": "inner"}, "id": "outer", "big": "xxxxxxxx'
    assert request_id_of_head(body) == "outer"


def test_an_id_cut_off_or_after_the_cut_is_not_guessed() -> None:
    assert request_id_of_head(b'{"type": "t", "id": "cut-of') == ""
    assert request_id_of_head(b'{"type": "t", "experiences": ["xxxx') == ""
    assert request_id_of_head(b"not json at all") == ""


def test_an_id_no_request_may_carry_is_not_echoed() -> None:
    assert request_id_of_head(b'{"id": "' + b"x" * 300 + b'", "more": "') == ""
