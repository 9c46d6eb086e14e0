"""Who hears a broadcast is the roles' table's answer for its audience (core.events.may_hear),
read from the message as the channel layer carries it between processes."""

from __future__ import annotations

import pytest

from core.accounts.principals import Principal
from core.accounts.roles import ALLOWED, Action, Role
from core.events import Topic, may_hear


def hearers(message: dict[str, object]) -> set[Role]:
    return {
        role
        for role in Role
        if may_hear(Principal(role=role, name="someone", is_human=False), message)
    }


@pytest.mark.parametrize("action", list(Action))
def test_a_broadcast_reaches_the_roles_the_table_allows_its_audience(action: Action) -> None:
    message = Topic("default", "test.ping", str(action), {"n": 1}).message()
    assert hearers(message) == ALLOWED[action]


@pytest.mark.parametrize("audience", ["everyone", "", None, 3])
def test_a_broadcast_of_no_known_audience_reaches_nobody(audience: object) -> None:
    assert hearers({"event": "test.ping", "payload": {}, "audience": audience}) == set()
