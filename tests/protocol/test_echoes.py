"""An error reply never echoes more of the request than a request may carry: ids of at most
NAME_LENGTH characters, a type cut to that length, any other text it quotes (a key) to TEXT_LENGTH."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
import pytest

from learnportal_protocol.errors import TEXT_LENGTH
from learnportal_protocol.models import NAME_LENGTH
from tests.builders import stats_req
from tests.harness import refused
from tests.learnportal.a2e.communicator import a2e_send

if TYPE_CHECKING:
    from tests.harness import Actor, Send

pytestmark = pytest.mark.django_db(transaction=True)

HUGE = "x" * 1_000_000


def test_an_id_over_the_bound_is_refused_by_name_and_not_echoed(
    agent: Actor, transport: Send
) -> None:
    reply = refused(transport(agent, {**stats_req(), "id": HUGE}), 400, "invalid")
    assert reply["req_id"] == ""
    assert [d["loc"] for d in reply["details"]] == [["id"]]
    assert len(orjson.dumps(reply)) < 2000


def test_an_id_within_the_bound_is_echoed(agent: Actor, transport: Send) -> None:
    request_id = "i" * NAME_LENGTH
    reply = refused(transport(agent, {**stats_req(), "id": request_id, "x": 1}), 400, "invalid")
    assert reply["req_id"] == request_id


def test_an_unknown_type_is_named_cut_to_the_bound(agent: Actor, transport: Send) -> None:
    reply = refused(transport(agent, {**stats_req(), "type": HUGE}), 400, "unknown_type")
    assert len(reply["message"]) < 2 * NAME_LENGTH + 400


def test_an_unknown_key_is_named_cut_to_the_bound(agent: Actor, transport: Send) -> None:
    reply = refused(transport(agent, {**stats_req(), HUGE: 1}), 400, "invalid")
    (loc,) = [d["loc"] for d in reply["details"]]
    assert len(loc[0]) <= TEXT_LENGTH + 3
    assert len(orjson.dumps(reply)) < 4 * TEXT_LENGTH


def test_an_a2e_error_echoes_no_id_over_the_bound(agent: Actor) -> None:
    for body in (
        {**stats_req(), "id": HUGE},
        {"type": "ping", "id": HUGE},
        b'{"id": "%s"' % HUGE.encode(),
    ):
        status, reply = a2e_send(agent, body)
        assert (status, reply["type"], reply["req_id"]) == (400, "error", ""), reply
        assert len(orjson.dumps(reply)) < 2000
