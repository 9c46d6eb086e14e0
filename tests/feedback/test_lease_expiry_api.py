"""Lease expiry over REST (`POST /api/queue/next/`): a lease that runs out gives up its place on
the turn to the next person, and only its own place.

test_queue.py checks the rule on the service with a turn needing one rating; here a turn needs
two, so one of its leases expires while the other still holds.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from tests.feedback.test_queue_api import post, queue_turns, take
from tests.harness import human_actor

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Actor

pytestmark = pytest.mark.django_db
LEASE = 60


def test_an_expired_lease_frees_its_place_for_the_next_person_while_the_other_lease_holds(
    agent: Actor, ann: Actor, clock: Any, settings: Settings
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    settings.LEARNPORTAL_LEASE_SECONDS = LEASE
    (queued,) = queue_turns(agent, "t-1")
    bob, carol = human_actor("bob", "annotator"), human_actor("carol", "annotator")
    assert take(ann)["turn"]["id"] == queued.pk
    clock.shift(timedelta(seconds=LEASE // 2))
    held_by_bob = take(bob)
    assert held_by_bob["turn"]["id"] == queued.pk
    assert post(carol, "next").status_code == 204  # two places, both taken

    clock.shift(timedelta(seconds=LEASE // 2 + 1))  # ann's lease has run out, bob's has not

    assert take(carol)["turn"]["id"] == queued.pk
    assert take(bob) == held_by_bob  # bob asks again: the same lease, not a new one
    assert post(ann, "next").status_code == 204  # ann's place is carol's now
