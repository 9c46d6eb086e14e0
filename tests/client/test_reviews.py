"""Reviews of ratings through the client, as a reviewer's script takes them: the next rating
held (None when none is left: the host's 204), a decision on it, and the decisions read back,
by the annotator too."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import feedback.reviews.answers as hosts
from learnportal_client import (
    AsyncLearnClient,
    ConflictError,
    InvalidError,
    LearnClient,
    RatingUnderReview,
    ReviewCreated,
    ReviewLeased,
    ReviewPage,
    StoredReview,
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
        (RatingUnderReview, hosts.RatingUnderReview),
        (ReviewLeased, hosts.ReviewLeased),
        (ReviewCreated, hosts.ReviewCreated),
        (StoredReview, hosts.StoredReview),
        (ReviewPage, hosts.ReviewPage),
    ],
)
def test_the_clients_review_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], theirs: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(theirs.model_fields)


@pytest.fixture
def rated(client: LearnClient, portal: Portal) -> list[str]:
    """Two turns the agent queued, each rated by the annotator ann: the ratings' names."""
    client.submit_turns([{"correlation_id": key, "rated_turn": turn()} for key in ("t-1", "t-2")])
    with LearnClient(portal.url, person_token("ann", "annotator")) as ann:
        return [
            f"{ann.rate(key, {'correctness': 0.5}).rating_id}.correctness" for key in ("t-1", "t-2")
        ]


@pytest.fixture
def reviewer(portal: Portal) -> Iterator[LearnClient]:
    with LearnClient(portal.url, person_token("rev", "reviewer")) as client:
        yield client


def test_a_reviewer_takes_each_rating_decides_and_reads_the_decisions(
    rated: list[str], reviewer: LearnClient, portal: Portal
) -> None:
    held = reviewer.rating_review_next()
    assert held is not None and held.rating.feedback_id == rated[0]
    assert held.rating.annotator == "ann" and held.rating.answers == {"correctness": 0.5}
    rejected = reviewer.review_rating(rated[0], "reject", reason="Too generous.")
    assert rejected.decision == "rejected"
    following = reviewer.rating_review_next()
    assert following is not None and following.rating.feedback_id == rated[1]
    amended = reviewer.review_rating(rated[1], "amend", answers={"correctness": -1.0})
    assert amended.decision == "amended" and amended.amendment
    assert reviewer.rating_review_next() is None  # none left: the host's 204
    page = reviewer.rating_reviews(limit=1)
    assert [r.decision for r in page.results] == ["amended"] and page.next
    assert [r.reason for r in reviewer.rating_reviews(page.next, limit=1).results] == [
        "Too generous."
    ]
    with LearnClient(portal.url, person_token("ann-2", "annotator")) as stranger:
        assert stranger.rating_reviews().results == []


def test_a_refused_decision_is_the_hosts_error(rated: list[str], reviewer: LearnClient) -> None:
    with pytest.raises(InvalidError) as refused:
        reviewer.review_rating(rated[0], "reject")
    assert refused.value.details[0]["loc"] == ["reason"]
    reviewer.review_rating(rated[0], "accept")
    with pytest.raises(ConflictError):
        reviewer.review_rating(rated[0], "accept")


@pytest.fixture
def reviewer_token() -> str:
    return person_token("rev", "reviewer")


async def test_the_async_client_reviews_too(
    rated: list[str], portal: Portal, reviewer_token: str
) -> None:
    async with AsyncLearnClient(portal.url, reviewer_token) as reviewer:
        held = await reviewer.rating_review_next()
        assert held is not None
        await reviewer.rating_review_release()
        again = await reviewer.rating_review_next()
        assert again is not None and again.rating.feedback_id == held.rating.feedback_id
        made = await reviewer.review_rating(held.rating.feedback_id, "accept")
        assert made.decision == "accepted"
        assert [r.review_id for r in (await reviewer.rating_reviews()).results] == [made.review_id]
