"""The blocking `LearnSession`: a whole list sent before any reply is read."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from feedback.models import Experience as StoredExperience
from learnportal.protocol.messages import (
    Envelope,
    LearnExperienceRequest,
    LearnFeedbackRequest,
    LearnStatsRequest,
)
from learnportal_client import (
    Action,
    Experience,
    Feedback,
    FeedbackPolarity,
    FeedbackSource,
    LearnClient,
    LearnError,
    LearnExperienceResponse,
    LearnStatsResponse,
)
from tests.client.test_calls import calls

if TYPE_CHECKING:
    from tests.client.conftest import Portal


def test_each_call_answers_its_response_model_over_a_session(client: LearnClient) -> None:
    with client.session() as session:
        calls(session)


def test_a_pipeline_answers_each_request_in_order(client: LearnClient) -> None:
    requests: list[Envelope] = [
        LearnExperienceRequest(experiences=[Experience(action=Action(component_name="c"))])
        for _ in range(20)
    ]
    requests.append(LearnStatsRequest())
    with client.session() as session:
        replies = session.pipeline(requests)
    assert [r.req_id for r in replies if not isinstance(r, LearnError)] == [r.id for r in requests]
    assert all(isinstance(r, LearnExperienceResponse) for r in replies[:20])
    assert isinstance(replies[20], LearnStatsResponse)
    assert StoredExperience.objects.count() == 20


def test_a_refused_request_of_a_pipeline_is_its_error_and_the_others_are_answered(
    client: LearnClient,
) -> None:
    with client.session() as session:
        bad, good = session.pipeline(
            [
                LearnFeedbackRequest(
                    feedbacks=[
                        Feedback(polarity=FeedbackPolarity.NEUTRAL, source=FeedbackSource.ENV)
                    ]
                ),
                LearnStatsRequest(),
            ]
        )
        assert isinstance(bad, LearnError)
        assert (bad.code, bad.details[0]["loc"][:2]) == ("forbidden", ["feedbacks", 0])
        assert isinstance(good, LearnStatsResponse)
        assert session.experience([{"reward": 0.1}]).stored == 1


def test_a_rate_limited_frame_is_sent_again_after_its_retry_after(
    portal: Portal, settings: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 1
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    with (
        LearnClient(portal.url, portal.token, max_batch=100, sleep=sleep) as client,
        client.session() as session,
    ):
        replies = session.pipeline([LearnStatsRequest() for _ in range(3)])
    assert all(isinstance(r, LearnStatsResponse) for r in replies), replies
    assert waits
    assert all(0 < w <= 1 for w in waits)
