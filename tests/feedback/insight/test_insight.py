"""Annotator insight (issue 27, item 3, first part): each person's items, time per item, skips,
gold accuracy, acceptance in review and agreement without them over a period, against values
worked out by hand, feedback.gold's own reading and krippendorff's; managers read everyone,
an annotator their own."""

from __future__ import annotations

import random
from typing import Any

import krippendorff
import numpy as np
import pytest

from feedback.insight.models import RatingTime
from feedback.intervals import wilson
from feedback.models import Lease, Turn
from feedback.queue import queue_assign
from tests.builders import feedback, feedback_req, stored, turn
from tests.harness import Actor, human_actor, refused_at

pytestmark = pytest.mark.django_db

# The tests' clock, stopped: in the past, so that ids made meanwhile (learnportal_protocol.ids,
# strictly increasing) never run ahead of the real clock for the tests after.
T0 = 1_700_000_000.0
DAY = 86_400.0
SCORES = {"correctness": 0.5, "helpfulness": -0.5}  # a rubric rating: two rows, one item


@pytest.fixture
def clock_at(time_machine: Any) -> Any:
    time_machine.move_to(T0, tick=False)
    return time_machine


@pytest.fixture
def two_a_turn(settings: Any) -> None:
    """Every turn queued needs two people, so that both annotators are offered the same."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2


def queued(agent: Actor, *keys: str) -> list[int]:
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in keys]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    found = dict(Turn.objects.filter(correlation_id__in=keys).values_list("correlation_id", "id"))
    return [found[key] for key in keys]


def held(person: Actor) -> dict[str, Any]:
    response = person.rest("post", "/api/queue/next/")
    assert response.status_code == 200, response.content
    lease: dict[str, Any] = response.json()
    return lease


def rated(person: Actor, key: str, answers: dict[str, float] | None = None) -> str:
    response = person.rest("post", "/api/ratings/", {"turn": key, "answers": answers or SCORES})
    assert response.status_code == 201, response.content
    rating_id: str = response.json()["rating_id"]
    return rating_id


def rate_from_queue(person: Actor, clock: Any, seconds: float) -> str:
    """Take the next turn, rate it `seconds` later: the turn's correlation_id."""
    key: str = held(person)["turn"]["correlation_id"]
    clock.shift(seconds)
    rated(person, key)
    return key


def rows_of(reader: Actor, query: str = "") -> dict[str, dict[str, Any]]:
    response = reader.rest("get", f"/api/annotators/{query}")
    assert response.status_code == 200, response.content
    return {row["username"]: row for row in response.json()["results"]}


@pytest.fixture
def worked(agent: Actor, clock_at: Any, two_a_turn: None) -> dict[str, Actor]:
    """`ana` rates three turns from the queue in 10, 20 and 60 s; `ben` two in 5 and 15 s,
    then skips the next."""
    queued(agent, *(f"t-{i}" for i in range(6)))
    ana, ben = human_actor("ana", "annotator"), human_actor("ben", "annotator")
    for seconds in (10, 20, 60):
        rate_from_queue(ana, clock_at, seconds)
    for seconds in (5, 15):
        rate_from_queue(ben, clock_at, seconds)
    skipped = held(ben)["turn"]["id"]
    assert ben.rest("post", "/api/queue/skip/", {"turn": skipped}).status_code == 204
    clock_at.shift(1)  # a period ends before its `until`: now, by default
    return {"ana": ana, "ben": ben}


def test_each_persons_items_times_and_skips_are_the_hand_worked_figures(
    worked: dict[str, Actor], rev: Actor
) -> None:
    rows = rows_of(rev)
    assert set(rows) == {"ana", "ben"}
    ana, ben = rows["ana"], rows["ben"]
    assert (ana["items"], ana["timed"], ana["skips"]) == (3, 3, 0)  # six rows, three ratings
    assert ana["seconds_median"] == pytest.approx(20.0)
    assert ana["seconds_p90"] == pytest.approx(20 + 0.8 * 40)  # between 20 and 60, linearly
    assert (ben["items"], ben["timed"], ben["skips"]) == (2, 2, 1)
    assert ben["seconds_median"] == pytest.approx(10.0)
    assert ben["seconds_p90"] == pytest.approx(5 + 0.9 * 10)
    assert ana["seconds_p90"] == pytest.approx(float(np.percentile([10, 20, 60], 90)))


def test_an_annotator_reads_only_their_own_row(worked: dict[str, Actor]) -> None:
    rows = rows_of(worked["ben"])
    assert list(rows) == ["ben"]
    assert rows["ben"]["skips"] == 1


def test_a_role_that_rates_nothing_is_forbidden_and_no_credential_unauthorized(
    worked: dict[str, Actor], agent: Actor, anonymous: Actor
) -> None:
    assert agent.rest("get", "/api/annotators/").status_code == 403
    assert anonymous.rest("get", "/api/annotators/").status_code == 401


def test_a_bad_since_is_refused_naming_it_and_changes_nothing(
    worked: dict[str, Actor], rev: Actor
) -> None:
    before = (stored(), RatingTime.objects.count(), Lease.objects.count())
    assert refused_at(rev.rest("get", "/api/annotators/?since=yesterday")) == [["since"]]
    assert refused_at(rev.rest("get", "/api/annotators/?until=1e99")) == [["until"]]
    assert (stored(), RatingTime.objects.count(), Lease.objects.count()) == before


def test_the_period_leaves_out_older_ratings(
    agent: Actor, clock_at: Any, rev: Actor, two_a_turn: None
) -> None:
    queued(agent, "t-old", "t-new")
    ana = human_actor("ana", "annotator")
    rate_from_queue(ana, clock_at, 30)  # 40 days before the rest
    clock_at.shift(40 * DAY)
    rate_from_queue(ana, clock_at, 12)
    clock_at.shift(1)
    row = rows_of(rev)["ana"]  # the last 30 days, by default
    assert (row["items"], row["timed"], row["seconds_median"]) == (1, 1, pytest.approx(12.0))
    since, until = T0 - 1, T0 + 1000
    older = rows_of(rev, f"?since={since:.0f}&until={until:.0f}")["ana"]
    assert (older["items"], older["seconds_median"]) == (1, pytest.approx(30.0))
    assert rows_of(rev, f"?since={until:.0f}&until={since:.0f}") == {}  # an empty period


def test_a_lease_handed_again_while_held_keeps_its_start(agent: Actor, ann: Actor) -> None:
    (turn_id,) = queued(agent, "t-1")
    held_turn = Turn.objects.get(pk=turn_id)
    queue_assign(held_turn, "ann", now=T0)
    queue_assign(held_turn, "ann", now=T0 + 60)
    assert Lease.objects.get(username="ann").created == T0
    queue_assign(held_turn, "ann", now=T0 + 10 * DAY)  # long expired: a new start
    assert Lease.objects.get(username="ann").created == T0 + 10 * DAY


def test_a_lease_from_before_its_start_was_kept_records_no_time(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queued(agent, "t-1")
    key = held(ann)["turn"]["correlation_id"]
    Lease.objects.filter(username="ann").update(created=0)
    rated(ann, key)
    assert not Lease.objects.filter(username="ann").exists()
    row = rows_of(rev)["ann"]
    assert (row["items"], row["timed"], row["seconds_median"]) == (1, 0, None)


def test_gold_accuracy_is_the_gold_pages_and_acceptance_counts_decided_ratings(
    agent: Actor, boss: Actor, rev: Actor, ann: Actor
) -> None:
    gold = queued(agent, "g-1", "g-2")
    queued(agent, "t-1", "t-2", "t-3")
    for turn_id in gold:
        answered = boss.rest("put", f"/api/turns/{turn_id}/gold/", {"answers": SCORES})
        assert answered.status_code == 200, answered.content
    rated(ann, "g-1", SCORES)  # both answers right
    rated(ann, "g-2", {"correctness": -1.0, "helpfulness": -0.5})  # one of two
    ratings = [rated(ann, key) for key in ("t-1", "t-2", "t-3")]
    for rating_id, decision, reason in (
        (ratings[0], "accept", ""),
        (ratings[1], "reject", "not what the rubric asks"),
    ):
        body = {"feedback_id": f"{rating_id}.correctness", "decision": decision, "reason": reason}
        assert rev.rest("post", "/api/reviews/", body).status_code == 201
    row = rows_of(rev)["ann"]
    (theirs,) = boss.rest("get", "/api/gold/people/").json()["results"]
    assert (row["gold"]["compared"], row["gold"]["matched"]) == (4, 3)
    assert row["gold"]["accuracy"] == theirs["accuracy"] == pytest.approx(0.75)
    assert row["gold"]["interval"] == pytest.approx(theirs["interval"])
    assert row["gold"]["interval"] == pytest.approx(list(wilson(3, 4)))
    assert row["reviews"] == {"accepted": 1, "rejected": 1, "amended": 0}
    assert row["acceptance"] == pytest.approx(0.5)
    assert row["items"] == 4  # five ratings; the rejected one no longer counts


KEYS = [f"u-{i}" for i in range(12)]
LEVELS = [-1.0, -0.5, 0.0, 0.5, 1.0]


def people_rate(scores: dict[str, dict[str, float]]) -> None:
    """Each person sends their whole-turn scores as plain human feedback, one a turn."""
    for name, by_key in scores.items():
        person = human_actor(name, "annotator")
        items = [
            feedback(feedback_id=f"{name}-{key}", source="human", score=score, correlation_id=key)
            for key, score in by_key.items()
        ]
        assert person.learn(feedback_req(*items)).status_code == 200


def test_alpha_without_a_person_is_krippendorffs_on_the_others_scores(rev: Actor) -> None:
    pick = random.Random(3)
    truth = {key: pick.choice(LEVELS) for key in KEYS}
    scores = {
        "ana": dict(truth),
        "ben": {key: truth[key] if pick.random() < 0.8 else pick.choice(LEVELS) for key in KEYS},
        "cyd": {key: -truth[key] for key in KEYS[:9]},  # contrary, on nine turns
    }
    people_rate(scores)
    rows = rows_of(rev)
    assert set(rows) == set(scores)

    def alpha(names: list[str]) -> float:
        data = [[scores[name].get(key, np.nan) for key in KEYS] for name in names]
        return float(krippendorff.alpha(np.array(data), level_of_measurement="interval"))

    everyone = alpha(["ana", "ben", "cyd"])
    for name in scores:
        others = [other for other in scores if other != name]
        assert rows[name]["alpha_without"] == pytest.approx(alpha(others))
        assert rows[name]["alpha_all"] == pytest.approx(everyone)
        assert rows[name]["items"] == len(scores[name])
    assert rows["cyd"]["alpha_without"] - everyone > 0.05  # the contrary one stands out
