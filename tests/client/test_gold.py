"""Gold items through the client, as a manager's script keeps them: a turn marked with its
known answers, the list, each person's accuracy and a paused queue resumed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import feedback.gold.answers as hosts
from feedback.comparisons.models import Comparison
from learnportal_client import (
    AsyncLearnClient,
    ConflictError,
    GoldPage,
    GoldPause,
    GoldPeople,
    InvalidError,
    LearnClient,
    NotFoundError,
    PersonGold,
    StoredGold,
    StoredGoldComparison,
)
from tests.builders import turn
from tests.client.conftest import person_token

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pydantic import BaseModel

    from tests.client.conftest import Portal


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        (StoredGold, hosts.StoredGold),
        (GoldPage, hosts.GoldPage),
        (GoldPause, hosts.Pause),
        (PersonGold, hosts.PersonGold),
        (GoldPeople, hosts.GoldPeople),
        (StoredGoldComparison, hosts.StoredGoldComparison),
    ],
)
def test_the_clients_gold_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], theirs: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(theirs.model_fields)


@pytest.fixture
def manager(portal: Portal) -> Iterator[LearnClient]:
    with LearnClient(portal.url, person_token("lead", "manager")) as client:
        yield client


@pytest.fixture
def turn_ids(client: LearnClient) -> list[int]:
    client.submit_turns([{"correlation_id": key, "rated_turn": turn()} for key in ("g-1", "t-1")])
    return [t.id for t in client.turns().results][::-1]


def test_a_manager_marks_gold_and_resumes_the_person_it_paused(
    manager: LearnClient, turn_ids: list[int], portal: Portal
) -> None:
    gold = manager.gold_mark(turn_ids[0], {"correctness": 1.0})
    assert (gold.correlation_id, gold.answers) == ("g-1", {"correctness": 1.0})
    with pytest.raises(InvalidError):
        manager.gold_mark(turn_ids[1], {"correctness": 7})
    manager.project_update("default", gold_rate=0.5, gold_min_items=1, gold_pause_below=0.5)
    with LearnClient(portal.url, person_token("ann", "annotator")) as ann:
        ann.rate("g-1", {"correctness": -1.0})
    (person,) = manager.gold_people().results
    assert (person.annotator, person.accuracy) == ("ann", 0.0)
    assert person.paused is not None and person.interval is not None
    assert manager.gold_resume("ann").paused is None
    with pytest.raises(ConflictError):
        manager.gold_resume("ann")
    assert [g.turn for g in manager.gold_items().results] == [turn_ids[0]]
    manager.gold_unmark(turn_ids[0])
    assert manager.gold_items().results == []


@pytest.fixture
def manager_token() -> str:
    return person_token("lead", "manager")


async def test_the_async_client_keeps_gold_too(
    turn_ids: list[int], portal: Portal, manager_token: str
) -> None:
    async with AsyncLearnClient(portal.url, manager_token) as manager:
        assert (await manager.gold_mark(turn_ids[0], {"correctness": 0.5})).turn == turn_ids[0]
        assert len((await manager.gold_items(limit=1)).results) == 1
        assert (await manager.gold_people()).results == []
        await manager.gold_unmark(turn_ids[0])


def test_a_manager_marks_a_comparisons_best_candidate(
    manager: LearnClient, client: LearnClient
) -> None:
    candidates = [
        {"response": "four", "component_name": "a"},
        {"response": "5", "component_name": "b"},
    ]
    (sent,) = client.submit_comparisons(
        [{"comparison_id": "c-1", "prompt": "2+2?", "candidates": candidates}]
    ).comparisons
    stored = Comparison.objects.get(comparison_id="c-1")
    gold = manager.gold_comparison_mark(stored.pk, sent.candidates[0])
    assert (gold.comparison_id, gold.best) == ("c-1", sent.candidates[0])
    with pytest.raises(InvalidError):
        manager.gold_comparison_mark(stored.pk, "no-such-candidate")
    manager.gold_comparison_unmark(stored.pk)
    with pytest.raises(NotFoundError):
        manager.gold_comparison_unmark(stored.pk)
