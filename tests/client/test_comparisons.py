"""Comparisons through the client, as an agent sends them: candidates for one prompt, each
given an id; once people judged them, the leaderboard of the agent's components."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import feedback.comparisons.answers as hosts
from core.accounts.roles import Role
from feedback.comparisons.judgments import JudgmentRequest, judgment_record
from feedback.comparisons.queue import candidates_shown
from learnportal_client import (
    AsyncLearnClient,
    ComparisonsCreated,
    InvalidError,
    Leaderboard,
    LeaderboardEntry,
    StoredComparison,
)
from tests.factories import PrincipalFactory

if TYPE_CHECKING:
    from pydantic import BaseModel

    from learnportal_client import LearnClient
    from tests.client.conftest import Portal


def candidates(n: int) -> dict[str, object]:
    return {
        "comparison_id": f"c-{n}",
        "prompt": f"Question {n}",
        "candidates": [
            {"response": "careful answer", "component_name": "careful"},
            {"response": "hasty answer", "component_name": "hasty"},
        ],
    }


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        (ComparisonsCreated, hosts.ComparisonsCreated),
        (StoredComparison, hosts.StoredComparison),
        (Leaderboard, hosts.Leaderboard),
        (LeaderboardEntry, hosts.LeaderboardEntry),
    ],
)
def test_the_clients_comparison_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], theirs: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(theirs.model_fields)


def test_an_agent_sends_comparisons_and_reads_the_leaderboard_people_made(
    client: LearnClient,
) -> None:
    created = client.submit_comparisons([candidates(n) for n in range(3)])
    assert (created.received, created.created) == (3, 3)
    assert [c.comparison_id for c in created.comparisons] == ["c-0", "c-1", "c-2"]
    person = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")
    for comparison in created.comparisons:
        shown = [response for _, response in candidates_shown(comparison.id, "ann")]
        preference = -1 if shown[0] == "careful answer" else 1
        judgment_record(
            principal=person,
            comparison=comparison.id,
            judgment=JudgmentRequest(preference=preference),
        )
    board = client.leaderboard()
    assert [entry.name for entry in board.entries] == ["careful", "hasty"]
    assert board.entries[0].wins == 3 and board.pairs == 3
    with pytest.raises(InvalidError):
        client.leaderboard(by="colour")


async def test_the_async_client_sends_comparisons_too(portal: Portal) -> None:
    async with AsyncLearnClient(portal.url, portal.token) as client:
        created = await client.submit_comparisons([candidates(0)])
        assert created.created == 1
        assert (await client.leaderboard(by="model")).entries == []
