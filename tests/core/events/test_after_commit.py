"""Broadcasts leave only after their transaction commits, and never for one that rolls back.

`broadcasts` captures what would go out (as Zulip's tests capture sent events) instead of
listening on a socket and sleeping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.db import transaction

from core.accounts.roles import Action
from core.events import broadcast_on_commit
from tests.builders import feedback, feedback_req

if TYPE_CHECKING:
    from tests.harness import Actor, Broadcasts


@pytest.mark.django_db(transaction=True)
def test_a_broadcast_queued_in_a_transaction_that_rolls_back_is_never_sent(
    broadcasts: Broadcasts,
) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        broadcast_on_commit("test.doomed", {"n": 1}, project="default", audience=Action.STATS)
        raise RuntimeError("the write fails after the broadcast was queued")
    with transaction.atomic():
        broadcast_on_commit("test.kept", {"n": 2}, project="default", audience=Action.STATS)
    assert broadcasts.events() == ["test.kept"]


@pytest.mark.django_db(transaction=True)
def test_a_refused_batch_sends_nothing_and_an_accepted_one_sends_once(
    broadcasts: Broadcasts, agent: Actor
) -> None:
    spoofed = feedback_req(feedback(component_name="c"), feedback(source="env"))
    assert agent.learn(spoofed).status_code == 403
    assert broadcasts.events() == []
    assert agent.learn(feedback_req(feedback(component_name="c"))).status_code == 200
    assert broadcasts.events() == ["feedback.recorded"]
    assert broadcasts.sent[0].payload["components"] == ["c"]
    assert broadcasts.sent[0].audience is Action.STATS


def test_in_a_test_transaction_broadcasts_wait_for_the_commit_that_never_comes(
    broadcasts: Broadcasts, agent: Actor
) -> None:
    # pytest-django wraps this test in a transaction it rolls back: on_commit never fires.
    assert agent.learn(feedback_req(feedback(component_name="c"))).status_code == 200
    assert broadcasts.events() == []
