"""Blind and N on every path (issue 20, item 9): one rule for what an annotator sees of the
feedback on a turn (feedback.selectors.visibility.seen_by), one for who may rate it
(feedback.raters)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from feedback.lease_notes import NOT_NEEDED
from feedback.models import Feedback, Retraction, Turn
from feedback.queue import queue_assign
from feedback.selectors.components import component_records
from tests.builders import feedback, feedback_req, turn
from tests.harness import default_pk, human_actor, ok, refused

if TYPE_CHECKING:
    from tests.harness import Actor, Send

pytestmark = pytest.mark.django_db
COMPONENT = "search"


def queue_turn(agent: Actor, key: str = "t-1") -> Turn:
    body = {"turns": [{"correlation_id": key, "component_name": COMPONENT, "rated_turn": turn()}]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    return Turn.objects.get(correlation_id=key)


def rating(key: str = "t-1", **fields: Any) -> dict[str, Any]:
    return feedback(correlation_id=key, component_name=COMPONENT, **fields)


def everywhere(actor: Actor, turn_pk: int) -> dict[str, set[str]]:
    """The feedback ids this person is shown on each page and endpoint that shows feedback."""
    client = actor.browser()
    api = actor.client.get("/api/feedback/", {"limit": 500}).json()["results"]
    explorer = client.get("/explorer/", {"limit": 500}).context["rows"]
    detail = client.get(f"/explorer/turns/{turn_pk}/").context["ratings"]
    rate_page = client.get(f"/turns/{turn_pk}/").context["ratings"]
    component = client.get(f"/components/{COMPONENT}/").context["feedback"]
    return {
        "/api/feedback/": {item["feedback_id"] for item in api},
        "/explorer/": {item.feedback_id for item, *_ in explorer},
        "/explorer/turns/<id>/": {row.feedback_id for row, _ in detail},
        "/turns/<id>/": {row.feedback_id for row, _ in rate_page},
        "/components/<name>/": {row["feedback_id"] for row in component},
    }


# --- what an annotator sees --------------------------------------------------------------


def test_no_page_or_endpoint_shows_an_annotator_machine_ratings_of_a_turn_they_have_not_rated(
    agent: Actor, ann: Actor
) -> None:
    queued = queue_turn(agent)
    assert (
        agent.learn(feedback_req(rating(feedback_id="by-agent", source="self"))).status_code == 200
    )
    seen = everywhere(ann, queued.pk)
    assert seen == {key: set() for key in seen}


def test_once_they_rated_the_turn_every_page_and_endpoint_shows_it_alike(
    agent: Actor, ann: Actor
) -> None:
    queued = queue_turn(agent)
    assert (
        agent.learn(feedback_req(rating(feedback_id="by-agent", source="self"))).status_code == 200
    )
    assert ann.learn(feedback_req(rating(feedback_id="by-ann"))).status_code == 200
    seen = everywhere(ann, queued.pk)
    assert seen == {key: {"by-agent", "by-ann"} for key in seen}


def test_machine_feedback_about_no_queued_turn_stays_in_the_annotators_lists(
    agent: Actor, ann: Actor
) -> None:
    assert agent.learn(feedback_req(rating("exp-9", feedback_id="no-turn"))).status_code == 200
    listed = ann.client.get("/api/feedback/").json()["results"]
    assert [item["feedback_id"] for item in listed] == ["no-turn"]


def test_a_rated_turn_carried_without_a_correlation_id_is_blind_too(
    ann: Actor, agent: Actor
) -> None:
    sent = feedback(feedback_id="carried", source="self", rated_turn=turn())
    assert agent.learn(feedback_req(sent)).status_code == 200
    assert Turn.objects.filter(correlation_id="carried").exists()
    assert ann.client.get("/api/feedback/").json()["results"] == []


def test_a_reviewer_sees_every_rating_before_rating_anything(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queued = queue_turn(agent)
    assert (
        agent.learn(feedback_req(rating(feedback_id="by-agent", source="self"))).status_code == 200
    )
    assert ann.learn(feedback_req(rating(feedback_id="by-ann"))).status_code == 200
    seen = everywhere(rev, queued.pk)
    assert seen == {key: {"by-agent", "by-ann"} for key in seen}


# --- one person, one live rating of a turn on a dimension ------------------------------------


def test_a_second_rating_of_a_turn_supersedes_the_first_on_every_transport(
    transport: Send, agent: Actor, ann: Actor, rev: Actor
) -> None:
    queue_turn(agent)
    ok(transport(ann, feedback_req(rating(feedback_id="first", score=-1.0))))
    ok(transport(ann, feedback_req(rating(feedback_id="second", score=0.5))))
    ok(transport(ann, feedback_req(rating(feedback_id="third", score=1.0))))
    for reader in (ann, rev):
        listed = reader.client.get("/api/feedback/", {"correlation_id": "t-1"}).json()["results"]
        assert [item["feedback_id"] for item in listed] == ["third"]
    # Kept, as an undo keeps a rating, but no longer counted anywhere.
    assert set(Retraction.objects.values_list("feedback__feedback_id", flat=True)) == {
        "first",
        "second",
    }
    assert component_records(default_pk(), COMPONENT)[0]["avg_score"] == pytest.approx(1.0)
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 0


def test_a_resend_of_the_same_feedback_id_and_content_is_still_a_safe_retry(
    transport: Send, agent: Actor, ann: Actor
) -> None:
    queue_turn(agent)
    item = rating(feedback_id="once")
    ok(transport(ann, feedback_req(item)))
    ok(transport(ann, feedback_req(item)))
    assert Feedback.objects.count() == 1
    assert not Retraction.objects.exists()


def test_one_turn_twice_on_one_dimension_in_one_batch_is_a_conflict_naming_both(
    agent: Actor, ann: Actor
) -> None:
    queue_turn(agent)
    response = ann.learn(feedback_req(rating(), rating(score=-0.5)))
    body = refused((response.status_code, response.json()), 409, "conflict")
    assert [d["loc"] for d in body["details"]] == [["feedbacks", 1, "correlation_id"]]
    assert not Feedback.objects.exists()


def test_a_person_may_rate_one_turn_on_several_dimensions(agent: Actor, ann: Actor) -> None:
    queue_turn(agent)
    sent = feedback_req(rating(dimension="tone"), rating(dimension="safety"))
    assert ann.learn(sent).status_code == 200
    assert Feedback.objects.count() == 2 and not Retraction.objects.exists()


# --- no more people than the turn needs ------------------------------------------------------


def test_a_person_past_the_ratings_a_turn_needs_is_refused_on_every_transport(
    transport: Send, agent: Actor, ann: Actor, rev: Actor
) -> None:
    queue_turn(agent)  # LEARNPORTAL_RATINGS_PER_TURN is 1
    ok(transport(ann, feedback_req(rating(feedback_id="by-ann"))))
    body = refused(transport(rev, feedback_req(rating(feedback_id="by-rev"))), 409, "conflict")
    assert body["details"] == [
        {
            "loc": ["feedbacks", 0, "correlation_id"],
            "msg": "this turn has the 1 ratings it needs from distinct people",
        }
    ]
    assert list(Feedback.objects.values_list("feedback_id", flat=True)) == ["by-ann"]


def test_the_one_who_holds_its_lease_may_rate_a_turn_past_its_ratings(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queued = queue_turn(agent)
    queue_assign(queued, rev.name)
    assert ann.learn(feedback_req(rating())).status_code == 409  # what is left is rev's
    assert rev.learn(feedback_req(rating())).status_code == 200


def test_a_newcomer_may_not_take_the_ratings_leased_to_others(
    agent: Actor, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queue_turn(agent)
    bob = human_actor("bob", "annotator")
    assert ann.rest("post", "/api/queue/next/").status_code == 200
    assert bob.rest("post", "/api/queue/next/").status_code == 200
    body = rev.learn(feedback_req(rating())).json()
    assert body["code"] == "conflict"
    assert (
        body["details"][0]["msg"] == "the ratings this turn still needs are leased to other people"
    )
    for person in (ann, bob):  # the queue's path: each rates the turn they were leased
        assert person.learn(feedback_req(rating())).status_code == 200
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 0


def test_the_rating_page_refuses_a_rating_past_what_the_turn_needs(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queued = queue_turn(agent)
    assert ann.learn(feedback_req(rating())).status_code == 200
    form = {
        "feedback_id": "from-the-page",
        "polarity": "positive",
        "score": "0.5",
        "dimension": "helpfulness",
        "confidence": "0.9",
    }
    response = rev.browser().post(f"/turns/{queued.pk}/", form)
    assert response.status_code == 409
    page = response.content.decode()
    assert NOT_NEEDED["enough"].format(turn=queued.correlation_id) in page  # in a sentence
    assert "may not rate so" not in page
    assert not Feedback.objects.filter(feedback_id="from-the-page").exists()
