"""Each person's work through the client: a reviewer reads everyone's rows, an annotator their
own, over the period asked for; sync and async."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

import feedback.insight.answers as hosts
from learnportal_client import (
    Annotators,
    AsyncLearnClient,
    ForbiddenError,
    InvalidError,
    LearnClient,
    PersonGoldFigures,
    PersonInsight,
    PersonReviews,
)
from tests.builders import feedback, turn
from tests.client.conftest import person_token

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tests.client.conftest import Portal


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        (PersonGoldFigures, hosts.GoldFigures),
        (PersonReviews, hosts.ReviewFigures),
        (PersonInsight, hosts.PersonFigures),
        (Annotators, hosts.AnnotatorsAnswer),
    ],
)
def test_the_clients_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], theirs: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(theirs.model_fields)


def test_a_reviewer_reads_everyone_and_an_annotator_their_own(
    portal: Portal, client: LearnClient
) -> None:
    client.submit_turns([{"correlation_id": "t-1", "rated_turn": turn()}])
    with LearnClient(portal.url, person_token("pia", "annotator")) as pia:
        pia.feedback([feedback(feedback_id="h-1", source="human", score=1.0, correlation_id="t-1")])
        (own,) = pia.annotators().results
        assert (own.username, own.items, own.skips) == ("pia", 1, 0)
    with LearnClient(portal.url, person_token("rev", "reviewer")) as rev:
        answer = rev.annotators(since=time.time() - 60, until=time.time() + 60)
        assert [row.username for row in answer.results] == ["pia"]
        assert answer.results[0].gold.accuracy is None
        assert rev.annotators(since=time.time() + 60, until=time.time() + 120).results == []
        with pytest.raises(InvalidError):
            rev.annotators(since=1e99)
    with pytest.raises(ForbiddenError):
        client.annotators()


@pytest.fixture
def reviewer_token() -> str:
    return person_token("rev", "reviewer")


async def test_the_async_client_reads_them_too(portal: Portal, reviewer_token: str) -> None:
    async with AsyncLearnClient(portal.url, reviewer_token) as rev:
        answer = await rev.annotators()
        assert answer.results == []
        assert answer.until - answer.since == pytest.approx(30 * 86_400)
