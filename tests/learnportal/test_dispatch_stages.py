"""The stages a recording of `dispatch` names (core/timing.py): what the bench's profile reads."""

from __future__ import annotations

import orjson
import pytest

from core.accounts.principals import Principal
from core.accounts.roles import Role
from core.timing import recording
from learnportal.dispatch import dispatch
from tests.builders import experience, experience_req

pytestmark = pytest.mark.django_db
AGENT = Principal(role=Role.AGENT, name="agent-1", is_human=False)


def test_a_recorded_experience_batch_names_its_parse_writes_and_answer() -> None:
    body = orjson.dumps(experience_req(experience("search", action={"success": True})))

    with recording() as times:
        reply = dispatch(AGENT, body)

    assert reply.status == 200
    assert {
        "parse: orjson, jiter checks, pydantic",
        "`new_items`: SELECT of existing ids",
        "INSERT (`feedback.bulk.insert_rows`)",
        "`stats_add_calls` (lock, sketch merge, UPDATE)",
        "response envelope",
    } <= set(times.calls)


def test_a_dispatch_after_its_recording_ended_adds_nothing_to_it() -> None:
    with recording() as times:
        pass
    dispatch(AGENT, orjson.dumps(experience_req(experience("search"))))

    assert times.calls == {}
