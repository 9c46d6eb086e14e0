"""The queue hands out steps of a kind (`POST /api/queue/next/?steps=tool`) by the turns' rules:
each step is a unit needing the project's ratings from distinct people, never leased to more
people at once than it still needs, never offered again to one who rated or skipped it; a
step's ratings are its own, not its turn's (feedback.queue, feedback.raters)."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any

import pytest
from django.db import connections

from core.accounts.roles import Role
from feedback.models import Lease, Turn, TurnStep
from feedback.queue import QueueLease, queue_next
from tests.builders import turn
from tests.factories import PrincipalFactory, TurnFactory
from tests.harness import Actor, at_once, human_actor

if TYPE_CHECKING:
    from core.accounts.principals import Principal

pytestmark = pytest.mark.django_db

RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5},
    {"kind": "boolean", "key": "tool_ok", "label": "Tool OK", "step_kinds": ["tool"]},
]


def tool_step(step_id: str, start: float) -> dict[str, Any]:
    return {"step_id": step_id, "name": "search", "kind": "tool", "start": start, "output": "x"}


@pytest.fixture
def traced(agent: Actor, boss: Actor) -> None:
    """t-1 calls its tool twice (s1, then s2), t-2 once (s3); t-1 has a model step too."""
    assert boss.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC}).status_code == (
        200
    )
    llm = {"step_id": "m1", "name": "chat", "kind": "llm", "start": 0.5}
    body = {
        "turns": [
            {"correlation_id": "t-1", "rated_turn": turn(),
             "steps": [tool_step("s2", 2.0), tool_step("s1", 1.0), llm]},
            {"correlation_id": "t-2", "rated_turn": turn(), "steps": [tool_step("s3", 1.0)]},
        ]
    }  # fmt: skip
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def next_step(actor: Actor, kinds: str = "tool") -> tuple[str, str] | None:
    """(correlation_id, step_id) of what the queue leases `actor`, or None for nothing."""
    response = actor.rest("post", f"/api/queue/next/?steps={kinds}")
    if response.status_code == 204:
        return None
    assert response.status_code == 200, response.content
    body = response.json()
    return body["turn"]["correlation_id"], body["step"]["step_id"]


def rate_step(actor: Actor, key: str, step_id: str, ok: bool = True) -> Any:
    body = {"turn": key, "step_id": step_id, "answers": {"tool_ok": ok}}
    return actor.rest("post", "/api/ratings/", body)


def test_steps_of_a_kind_are_handed_out_in_order_and_each_rating_ends_its_lease(
    traced: None, ann: Actor
) -> None:
    assert next_step(ann) == ("t-1", "s1")
    assert next_step(ann) == ("t-1", "s1")  # held: the same again
    assert rate_step(ann, "t-1", "s1").status_code == 201
    assert not Lease.objects.filter(username="ann").exists()
    assert next_step(ann) == ("t-1", "s2")
    assert rate_step(ann, "t-1", "s2").status_code == 201
    assert next_step(ann) == ("t-2", "s3")
    assert rate_step(ann, "t-2", "s3").status_code == 201
    assert next_step(ann) is None
    assert next_step(ann, "llm") == ("t-1", "m1")


def test_a_step_goes_to_as_many_people_at_once_as_it_needs(
    traced: None, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    third = human_actor("tess", "annotator")
    assert next_step(ann) == next_step(rev) == ("t-1", "s1")
    assert next_step(third) == ("t-1", "s2")  # s1 is held by the two it needs
    assert rate_step(ann, "t-1", "s1").status_code == 201
    assert next_step(ann) == ("t-1", "s2")  # never s1 again: ann rated it


def test_a_step_rated_by_all_it_needs_refuses_a_newcomer_and_not_its_turn(
    traced: None, ann: Actor, rev: Actor
) -> None:
    assert next_step(ann) == ("t-1", "s1")
    assert rate_step(ann, "t-1", "s1").status_code == 201
    refused = rate_step(rev, "t-1", "s1")
    assert refused.status_code == 409, refused.content
    # The step's rating is not the turn's: t-1 still needs its own, and rev may give it.
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 1
    rated = rev.rest("post", "/api/ratings/", {"turn": "t-1", "answers": {"quality": 3}})
    assert rated.status_code == 201, rated.content
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 0


def test_a_skipped_step_is_not_offered_again_and_a_released_one_is(
    traced: None, ann: Actor
) -> None:
    assert next_step(ann) == ("t-1", "s1")
    t1 = Turn.objects.get(correlation_id="t-1").pk
    released = ann.rest("post", "/api/queue/release/", {"turn": t1, "step_id": "s1"})
    assert released.status_code == 204
    assert next_step(ann) == ("t-1", "s1")
    skipped = ann.rest("post", "/api/queue/skip/", {"turn": t1, "step_id": "s1"})
    assert skipped.status_code == 204
    assert next_step(ann) == ("t-1", "s2")
    not_mine = ann.rest("post", "/api/queue/skip/", {"turn": t1, "step_id": "s1"})
    assert not_mine.status_code == 404


def test_an_undone_step_rating_leases_the_step_back(traced: None, ann: Actor) -> None:
    assert next_step(ann) == ("t-1", "s1")
    assert rate_step(ann, "t-1", "s1").status_code == 201
    rating = ann.rest("get", "/api/feedback/?source=human").json()["results"][0]
    undone = ann.rest("post", "/api/queue/undo/", {"feedback_id": rating["feedback_id"]})
    assert undone.status_code == 200, undone.content
    assert Lease.objects.get(username="ann").step_id == "s1"
    assert next_step(ann) == ("t-1", "s1")


def test_a_kind_that_is_not_a_step_kind_is_invalid_naming_steps(traced: None, ann: Actor) -> None:
    response = ann.rest("post", "/api/queue/next/?steps=tool,spaceship")
    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["steps"]
    assert not Lease.objects.exists()


def test_a_turns_lease_answers_no_step(traced: None, ann: Actor) -> None:
    body = ann.rest("post", "/api/queue/next/").json()
    assert set(body) == {"turn", "lease_expires"}


PEOPLE = [PrincipalFactory.build(role=Role.ANNOTATOR, name=f"p-{i}") for i in range(6)]


def _ask_for_steps_at_once(people: list[Principal]) -> list[QueueLease | None]:
    """Every person asks for a tool step at the same moment, each on a thread and a connection."""
    return at_once([partial(queue_next, who, steps=["tool"]) for who in people])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("per_turn", [1, 2])
def test_people_asking_for_steps_at_once_never_share_one_beyond_its_need(
    settings: Any, per_turn: int
) -> None:
    """Six people, two tool steps: none held by more people than it needs (on PostgreSQL the
    step's row lock is skipped, so a person may find both locked and get none)."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = per_turn
    for round_ in range(3):
        Lease.objects.all().delete()
        Turn.objects.all().delete()
        made = TurnFactory.create(correlation_id=f"r{round_}")
        for index in range(2):
            TurnStep.objects.create(
                turn=made, step_id=f"s{index}", name="search", kind="tool", attributes="{}"
            )
        answers = _ask_for_steps_at_once(PEOPLE)
        held = Counter(a.step.step_id for a in answers if a is not None and a.step is not None)
        assert set(held) == {"s0", "s1"}, held
        assert all(count <= per_turn for count in held.values()), held
        if connections["default"].vendor == "sqlite":
            assert held == {"s0": per_turn, "s1": per_turn}, held
        assert Counter(Lease.objects.values_list("step_id", flat=True)) == held
