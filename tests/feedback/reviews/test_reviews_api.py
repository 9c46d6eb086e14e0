"""Reviews of ratings over REST (issue 27, item 1): a reviewer leases the oldest rating nobody
reviewed, accepts it, rejects it with a reason or amends it with their own answers; a rejected
rating leaves the exports, the explorer and the counts, and its turn needs a rating again; an
amended one is replaced by the reviewer's; an annotator reads the reviews of their own
ratings."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.projects.services import project_add
from feedback.models import Feedback, Turn
from feedback.queue import queue_assign
from feedback.reviews.models import RatingReview, ReviewLease
from tests.builders import feedback, feedback_req, turn
from tests.factories import EndpointFactory
from tests.harness import Actor, human_actor, refused_at, token_actor
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

SCORES = {"correctness": 0.5, "helpfulness": -0.5}


def queued(agent: Actor, *keys: str) -> None:
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in keys]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def rated(person: Actor, key: str, answers: dict[str, float] | None = None) -> list[str]:
    """The person's rating of turn `key` (two rows: one a scored answer): its feedback_ids."""
    response = person.rest("post", "/api/ratings/", {"turn": key, "answers": answers or SCORES})
    assert response.status_code == 201, response.content
    rating_id = response.json()["rating_id"]
    return sorted(
        Feedback.objects.filter(feedback_id__startswith=rating_id).values_list(
            "feedback_id", flat=True
        )
    )


def lease(reviewer: Actor) -> dict[str, Any] | None:
    response = reviewer.rest("post", "/api/reviews/next/")
    if response.status_code == 204:
        return None
    assert response.status_code == 200, response.content
    held: dict[str, Any] = response.json()
    return held


def review(reviewer: Actor, feedback_id: str, decision: str, reason: str = "") -> Any:
    body = {"feedback_id": feedback_id, "decision": decision, "reason": reason}
    return reviewer.rest("post", "/api/reviews/", body)


def exported_ratings(reader: Actor) -> set[str]:
    """The rating ids of the `answers` and `rewards` exports (each must say the same)."""
    answers = {line["rating_id"] for line in reader.exported("answers")}
    rewards = {line["rating_id"] for line in reader.exported("rewards") if "rating_id" in line}
    assert answers == rewards
    return answers


def rating_of(feedback_ids: list[str]) -> str:
    return feedback_ids[0].partition(".")[0]


@pytest.fixture
def two_rated(agent: Actor, ann: Actor) -> list[list[str]]:
    queued(agent, "t-1", "t-2")
    return [rated(ann, "t-1"), rated(ann, "t-2")]


def test_a_reviewer_leases_the_oldest_rating_whole_with_its_turn(
    two_rated: list[list[str]], rev: Actor
) -> None:
    held = lease(rev)
    assert held is not None
    rating = held["rating"]
    assert rating["feedback_id"] == two_rated[0][0]
    assert rating["annotator"] == "ann"
    assert sorted(f["feedback_id"] for f in rating["feedbacks"]) == two_rated[0]
    assert {f["rated_turn"]["prompt"] for f in rating["feedbacks"]} == {turn()["prompt"]}
    assert rating["answers"] == SCORES
    assert held["lease_expires"] > 0
    assert lease(rev) == held  # held: the same one again


def test_an_accepted_rating_stays_counted_and_is_not_offered_again(
    two_rated: list[list[str]], rev: Actor, boss: Actor
) -> None:
    first = two_rated[0][0]
    response = review(rev, first, "accept")
    assert response.status_code == 201, response.content
    assert response.json()["decision"] == "accepted"
    assert sorted(response.json()["feedback_ids"]) == two_rated[0]
    assert rating_of(two_rated[0]) in exported_ratings(boss)
    held = lease(rev)
    assert held is not None and held["rating"]["feedback_id"] == two_rated[1][0]


def test_a_rejected_rating_leaves_the_exports_and_its_turn_needs_a_rating_again(
    two_rated: list[list[str]], rev: Actor, boss: Actor
) -> None:
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 0
    response = review(rev, two_rated[0][1], "reject", "Scored a wrong answer as right.")
    assert response.status_code == 201, response.content
    assert response.json()["decision"] == "rejected"
    assert exported_ratings(boss) == {rating_of(two_rated[1])}
    listed = boss.rest("get", "/api/feedback/").json()["results"]
    assert not {f["feedback_id"] for f in listed} & set(two_rated[0])
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 1
    assert RatingReview.objects.filter(decision="rejected").count() == 2  # a row each


def test_a_rejection_says_why_and_a_bad_decision_is_refused_and_nothing_is_stored(
    two_rated: list[list[str]], rev: Actor
) -> None:
    first = two_rated[0][0]
    assert refused_at(review(rev, first, "reject", "  ")) == [["reason"]]
    assert refused_at(review(rev, first, "maybe")) == [["decision"]]
    assert refused_at(review(rev, first, "accept", "x" * 2001)) == [["reason"]]
    assert not RatingReview.objects.exists()


def test_a_rating_is_reviewed_once_never_by_its_author_and_only_while_it_counts(
    agent: Actor, two_rated: list[list[str]], rev: Actor
) -> None:
    first = two_rated[0][0]
    assert review(rev, first, "accept").status_code == 201
    again = review(rev, two_rated[0][1], "reject", "no")
    assert again.status_code == 409
    assert refused_at(again, 409) == [["feedback_id"]]
    queued(agent, "t-3")
    own = rated(rev, "t-3")
    assert refused_at(review(rev, own[0], "accept"), 409) == [["feedback_id"]]
    assert refused_at(review(rev, "no-such-rating", "accept"), 404) == [["feedback_id"]]


def test_people_who_are_no_reviewers_neither_lease_nor_decide(
    two_rated: list[list[str]], ann: Actor, agent: Actor
) -> None:
    other = human_actor("otto", "annotator")
    assert other.rest("post", "/api/reviews/next/").status_code == 403
    assert review(other, two_rated[0][0], "accept").status_code == 403
    assert agent.rest("post", "/api/reviews/next/").status_code == 403
    assert not RatingReview.objects.exists()


def test_another_projects_rating_is_not_found(two_rated: list[list[str]]) -> None:
    project_add(slug="beta", name="Beta")
    outsider = human_actor("rita", "reviewer", project="beta")
    assert lease(outsider) is None
    assert refused_at(review(outsider, two_rated[0][0], "accept"), 404) == [["feedback_id"]]


def test_two_reviewers_never_hold_one_rating_and_a_release_gives_it_back(
    two_rated: list[list[str]], rev: Actor, rev2: Actor
) -> None:
    mine, theirs = lease(rev), lease(rev2)
    assert mine is not None and theirs is not None
    assert mine["rating"]["feedback_id"] != theirs["rating"]["feedback_id"]
    third = human_actor("rex", "reviewer")
    assert lease(third) is None
    assert rev.rest("post", "/api/reviews/release/").status_code == 204
    again = lease(third)
    assert again is not None and again["rating"]["feedback_id"] == mine["rating"]["feedback_id"]
    assert ReviewLease.objects.filter(username="rev").count() == 0


def test_a_single_human_feedback_is_a_rating_of_its_own(agent: Actor, rev: Actor) -> None:
    person = human_actor("pia", "annotator")
    item = feedback(feedback_id="fb-solo", source="human", score=0.8, component_name="c")
    assert person.learn(feedback_req(item)).status_code == 200
    held = lease(rev)
    assert held is not None
    assert [f["feedback_id"] for f in held["rating"]["feedbacks"]] == ["fb-solo"]
    assert held["rating"]["answers"] is None
    assert review(rev, "fb-solo", "reject", "Not about this component.").status_code == 201


def test_an_annotator_reads_the_reviews_of_their_own_ratings_and_a_reviewer_all(
    agent: Actor, two_rated: list[list[str]], rev: Actor
) -> None:
    queued(agent, "t-3")
    other = human_actor("otto", "annotator")
    theirs = rated(other, "t-3")
    assert review(rev, two_rated[0][0], "reject", "Too generous.").status_code == 201
    assert review(rev, theirs[0], "accept").status_code == 201
    ann = human_actor("ann-2", "annotator")  # a third: none of theirs
    assert ann.rest("get", "/api/reviews/").json()["results"] == []
    seen = other.rest("get", "/api/reviews/").json()["results"]
    assert [(r["feedback_id"], r["decision"]) for r in seen] == [(theirs[0], "accepted")]
    everyone = rev.rest("get", "/api/reviews/").json()["results"]
    assert [(r["annotator"], r["decision"], r["reason"]) for r in everyone] == [
        ("otto", "accepted", ""),
        ("ann", "rejected", "Too generous."),
    ]
    rejected = rev.rest("get", "/api/reviews/?decision=rejected").json()["results"]
    assert [r["annotator"] for r in rejected] == ["ann"]


def test_the_reviews_come_a_page_at_a_time(agent: Actor, rev: Actor) -> None:
    queued(agent, *(f"t-{i}" for i in range(5)))
    person = human_actor("pia", "annotator")
    for i in range(5):
        assert review(rev, rated(person, f"t-{i}")[0], "accept").status_code == 201
    seen: list[str] = []
    url = "/api/reviews/?limit=2"
    while url:
        page = rev.rest("get", url).json()
        seen += [r["review_id"] for r in page["results"]]
        url = f"/api/reviews/?limit=2&cursor={page['next']}" if page["next"] else ""
    assert len(seen) == len(set(seen)) == 5
    assert refused_at(rev.rest("get", "/api/reviews/?cursor=forged"), 404) == [["cursor"]]


def test_an_agent_token_cannot_forge_a_review_through_the_learn_protocol(
    two_rated: list[list[str]],
) -> None:
    machine = token_actor("bot", "agent")
    assert review(machine, two_rated[0][0], "reject", "spoofed").status_code == 403
    assert not RatingReview.objects.exists()


def test_a_rejected_rating_leaves_the_agreement(agent: Actor, rev: Actor, settings: Any) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queued(agent, "t-1", "t-2")
    ann, bob = human_actor("ann-a", "annotator"), human_actor("bob-b", "annotator")
    for key, (mine, theirs) in {"t-1": (0.5, 0.5), "t-2": (-0.5, 1.0)}.items():
        rated(ann, key, {"correctness": mine})
        careless = rated(bob, key, {"correctness": theirs})

    def units() -> int:
        rows = rev.rest("get", "/api/agreement/").json()["questions"]
        return int(next(q for q in rows if q["key"] == "correctness")["units"])

    assert units() == 2
    assert review(rev, careless[0], "reject", "Random.").status_code == 201
    assert units() == 1


def test_a_decision_is_a_rating_reviewed_webhook_and_a_refused_one_none(
    two_rated: list[list[str]], rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True  # the factory's endpoint is this machine
    EndpointFactory.create(events=["rating.reviewed"])
    assert review(rev, two_rated[0][0], "reject", "").status_code == 400
    assert not Delivery.objects.exists()
    assert review(rev, two_rated[0][0], "reject", "Careless.").status_code == 201
    (delivery,) = Delivery.objects.filter(event="rating.reviewed")
    data = json.loads(delivery.body)["data"]
    assert (data["feedback_id"], data["decision"], data["annotator"], data["by"]) == (
        two_rated[0][0],
        "rejected",
        "ann",
        "rev",
    )


@pytest.mark.parametrize("stored", ["[1, 2]", "{", '{"prompt": 3}'])
def test_a_rating_whose_stored_turn_is_unreadable_is_still_reviewed(
    two_rated: list[list[str]], rev: Actor, boss: Actor, stored: str
) -> None:
    Feedback.objects.filter(feedback_id__in=two_rated[0]).update(rated_turn=stored)
    held = lease(rev)
    assert held is not None
    # Read as none stored: the queued turn of its id stands in.
    assert {f["rated_turn"]["prompt"] for f in held["rating"]["feedbacks"]} == {turn()["prompt"]}
    assert boss.rest("get", "/api/feedback/").status_code == 200


def amend(reviewer: Actor, feedback_id: str, answers: dict[str, Any], **more: Any) -> Any:
    body = {"feedback_id": feedback_id, "decision": "amend", "answers": answers, **more}
    return reviewer.rest("post", "/api/reviews/", body)


def test_an_amendment_is_the_reviewers_rating_in_place_of_the_annotators(
    two_rated: list[list[str]], rev: Actor, boss: Actor, ann: Actor
) -> None:
    response = amend(rev, two_rated[0][0], {"correctness": -1.0}, reason="Wrong, not right.")
    assert response.status_code == 201, response.content
    made = response.json()
    assert made["decision"] == "amended"
    amendment = made["amendment"]
    assert amendment and rating_of([amendment]) != rating_of(two_rated[0])
    # The annotator's rating leaves what counts; the reviewer's counts in its place.
    assert exported_ratings(boss) == {rating_of(two_rated[1]), rating_of([amendment])}
    (line,) = [x for x in boss.exported("answers") if x["rating_id"] == rating_of([amendment])]
    assert (line["annotator"], line["answers"]) == ("rev", {"correctness": -1.0})
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 0
    # Stored beside it, never overwritten.
    assert Feedback.objects.filter(feedback_id__in=two_rated[0]).count() == 2
    seen = ann.rest("get", "/api/reviews/").json()["results"]
    assert [(r["decision"], r["amendment"], r["reason"]) for r in seen] == [
        ("amended", amendment, "Wrong, not right.")
    ]


def test_an_amendment_is_never_offered_for_review(
    two_rated: list[list[str]], rev: Actor, rev2: Actor
) -> None:
    assert amend(rev, two_rated[0][0], {"correctness": 1.0}).status_code == 201
    assert review(rev, two_rated[1][0], "accept").status_code == 201
    assert lease(rev2) is None


def test_an_amendment_answers_as_a_rating_does_or_nothing_changes(
    two_rated: list[list[str]], rev: Actor, boss: Actor
) -> None:
    first = two_rated[0][0]
    assert refused_at(amend(rev, first, {"correctness": 7})) == [["answers", "correctness"]]
    assert refused_at(amend(rev, first, {"no-such": 1})) == [["answers", "no-such"]]
    refused = amend(rev, first, {"correctness": 1.0}, rubric_version=99)
    assert refused_at(refused, 409) == [["rubric_version"]]
    no_answers = rev.rest("post", "/api/reviews/", {"feedback_id": first, "decision": "amend"})
    assert refused_at(no_answers) == [["answers"]]
    accept_with_answers = rev.rest(
        "post",
        "/api/reviews/",
        {"feedback_id": first, "decision": "accept", "answers": {"correctness": 1.0}},
    )
    assert refused_at(accept_with_answers) == [["answers"]]
    assert not RatingReview.objects.exists()
    assert exported_ratings(boss) == {rating_of(two_rated[0]), rating_of(two_rated[1])}


def test_a_reviewer_who_rated_the_turn_cannot_amend_a_rating_of_it(
    agent: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queued(agent, "t-1")
    theirs = rated(human_actor("otto", "annotator"), "t-1")
    rated(rev, "t-1")
    refused = amend(rev, theirs[0], {"correctness": 1.0})
    assert refused_at(refused, 409) == [["feedback_id"]]
    assert "yourself" in refused.json()["details"][0]["msg"]
    assert not RatingReview.objects.exists()
    assert review(rev, theirs[0], "reject", "Careless.").status_code == 201


def test_a_rating_of_no_stored_turn_is_not_amended(agent: Actor, rev: Actor) -> None:
    person = human_actor("pia", "annotator")
    item = feedback(feedback_id="fb-solo", source="human", score=0.8, component_name="c")
    assert person.learn(feedback_req(item)).status_code == 200
    assert refused_at(amend(rev, "fb-solo", {"correctness": 1.0}), 409) == [["feedback_id"]]
    assert Feedback.objects.filter(feedback_id="fb-solo").count() == 1


@pytest.mark.parametrize("decision", ["reject", "amend"])
def test_the_queue_never_hands_a_turn_back_to_the_author_of_its_overruled_rating(
    two_rated: list[list[str]], rev: Actor, ann: Actor, decision: str
) -> None:
    if decision == "reject":
        assert review(rev, two_rated[0][0], "reject", "Careless.").status_code == 201
        wanted: str | None = "t-1"  # it needs a rating again, from anyone but ann
    else:
        assert amend(rev, two_rated[0][0], {"correctness": 1.0}).status_code == 201
        wanted = None  # the reviewer's rating took its place
    assert ann.rest("post", "/api/queue/next/").status_code == 204
    offered = human_actor("otto", "annotator").rest("post", "/api/queue/next/")
    if wanted is None:
        assert offered.status_code == 204
    else:
        assert offered.json()["turn"]["correlation_id"] == wanted


def test_an_amendment_takes_the_place_of_a_rating_whose_turn_has_others_enough(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queued(agent, "t-1")
    theirs = rated(ann, "t-1")
    colleague = human_actor("bob", "annotator")
    queue_assign(Turn.objects.get(correlation_id="t-1"), "bob")  # past the one rating it needs
    rated(colleague, "t-1")
    response = amend(rev, theirs[0], {"correctness": -1.0})
    assert response.status_code == 201, response.content
    raters = set(
        Feedback.objects.filter(correlation_id="t-1").values_list("annotator_id", flat=True)
    )
    assert raters == {"ann", "bob", "rev"}
