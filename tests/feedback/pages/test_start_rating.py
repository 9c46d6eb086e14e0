"""The turn list and the queue: a "Start rating" button, and "rated" meaning rated by people."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import pytest
from django.core.management import call_command

from feedback.models import Turn
from feedback.selectors.turns import unrated_turn_count
from feedback.services.feedbacks import feedback_record
from learnportal.demo import DEMO_AGENT
from learnportal_protocol import Feedback, FeedbackPolarity
from tests.harness import default_pk

if TYPE_CHECKING:
    from django.test import Client
    from pytest_django import Settings

pytestmark = pytest.mark.django_db


def test_the_turn_list_has_a_start_rating_button_to_the_queue(annotator: Client) -> None:
    page = annotator.get("/turns/").content.decode()
    assert '<a class="button" id="start-rating" href="/queue/">Start rating</a>' in page


def test_an_agents_own_feedback_leaves_a_turn_unrated_in_the_list(annotator: Client) -> None:
    feedback_record(
        principal=DEMO_AGENT,
        feedbacks=[Feedback(correlation_id="demo-turn-2", polarity=FeedbackPolarity.POSITIVE)],
    )
    page = annotator.get("/turns/").content.decode()
    assert "<b>3</b> left for you to rate" in page  # as before the agent's feedback: 2, 4 and 5
    assert unrated_turn_count(default_pk()) == (3, False)


def test_a_turn_short_of_its_ratings_says_how_many_more_to_a_reviewer(
    reviewer: Client, settings: Settings
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    call_command("queue_recount", stderr=io.StringIO())  # the demo rated 0, 1 and 3 once
    assert Turn.objects.get(correlation_id="demo-turn-0").ratings_needed == 1
    # To an annotator "rated" means rated by them (blind); a reviewer sees the turn's own count.
    page = reviewer.get("/turns/").content.decode()
    assert "needs 1 more" in page
