"""Gold items (issue 27, item 2): a manager marks turns with known answers; the queue mixes
them in at the project's rate, unmarked; each person's accuracy on them comes with an
interval; a careless person's queue pauses after the configured number of gold items, the
managers are told, and a manager resumes it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from core.projects.models import Project
from feedback.gold.models import GoldItem, GoldResult, QueuePause
from feedback.intervals import wilson
from feedback.models import Turn
from tests.builders import feedback, feedback_req, turn
from tests.factories import EndpointFactory
from tests.harness import Actor, human_actor, refused_at
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

OPTIONS = ["right", "partly", "wrong", "off-topic", "unsafe"]
RUBRIC = [
    {"key": "verdict", "label": "Verdict", "kind": "categorical", "options": OPTIONS},
    {"key": "quality", "label": "Quality", "kind": "numeric", "min": 1, "max": 5},
    {"key": "why", "label": "Why", "kind": "text", "required": False},
]
KNOWN = {"verdict": "right", "quality": 4}


@pytest.fixture
def rubric(boss: Actor) -> None:
    response = boss.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC})
    assert response.status_code in (200, 201), response.content


def queued(agent: Actor, *keys: str) -> list[int]:
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in keys]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    found = dict(Turn.objects.filter(correlation_id__in=keys).values_list("correlation_id", "id"))
    return [found[key] for key in keys]


def mark(manager: Actor, turn_id: int, answers: dict[str, Any]) -> Any:
    return manager.rest("put", f"/api/turns/{turn_id}/gold/", {"answers": answers})


def settings_set(**gold: Any) -> None:
    Project.objects.filter(slug="default").update(**gold)


def test_a_manager_marks_a_turn_gold_and_nobody_else_may(
    agent: Actor, boss: Actor, ann: Actor, rev: Actor, rubric: None
) -> None:
    (turn_id,) = queued(agent, "g-1")
    response = mark(boss, turn_id, KNOWN)
    assert response.status_code == 200, response.content
    assert (response.json()["correlation_id"], response.json()["answers"]) == ("g-1", KNOWN)
    for person in (ann, rev, agent):
        assert mark(person, turn_id, {"verdict": "wrong"}).status_code == 403
        assert person.rest("get", "/api/gold/").status_code == 403
    listed = boss.rest("get", "/api/gold/").json()["results"]
    assert [(g["turn"], g["answers"]) for g in listed] == [(turn_id, KNOWN)]
    assert boss.rest("delete", f"/api/turns/{turn_id}/gold/").status_code == 204
    assert refused_at(boss.rest("delete", f"/api/turns/{turn_id}/gold/"), 404) == [["turn"]]


def test_known_answers_are_checked_as_a_ratings_and_refused_whole(
    agent: Actor, boss: Actor, rubric: None
) -> None:
    (turn_id,) = queued(agent, "g-1")
    assert refused_at(mark(boss, turn_id, {"verdict": "maybe", "quality": 9})) == [
        ["answers", "verdict"],
        ["answers", "quality"],
    ]
    assert refused_at(mark(boss, turn_id, {"why": "because"})) == [["answers", "why"]]
    assert refused_at(mark(boss, turn_id, {})) == [["answers"]]
    assert refused_at(mark(boss, 999_999, KNOWN), 404) == [["turn"]]
    assert not GoldItem.objects.exists()


def test_the_queue_mixes_gold_items_in_at_the_rate_unmarked(
    agent: Actor, boss: Actor, ann: Actor, rubric: None
) -> None:
    golds = queued(agent, *(f"g-{i}" for i in range(10)))
    queued(agent, *(f"t-{i}" for i in range(40)))
    for turn_id in golds:
        assert mark(boss, turn_id, KNOWN).status_code == 200
    settings_set(gold_rate=0.2)
    shown: list[str] = []
    shapes = set()
    for _ in range(25):
        held = ann.rest("post", "/api/queue/next/").json()
        shapes.add(json.dumps(sorted(held["turn"])))
        key = held["turn"]["correlation_id"]
        shown.append(key)
        answers = {"verdict": "right", "quality": 3}
        assert (
            ann.rest("post", "/api/ratings/", {"turn": key, "answers": answers}).status_code == 201
        )
    assert sum(key.startswith("g-") for key in shown) == 5  # one in five
    assert len(shapes) == 1  # a gold item's lease says nothing a turn's does not


def careless_or_careful(person: Actor, careless: bool, seed: int, most: int) -> int:
    """Rate from the queue until it pauses (or runs out, or `most` are rated): the items
    rated."""
    pick = random.Random(seed)
    for count in range(most):
        response = person.rest("post", "/api/queue/next/")
        if response.status_code != 200:
            return count
        key = response.json()["turn"]["correlation_id"]
        answers = (
            {"verdict": pick.choice(OPTIONS), "quality": pick.randint(1, 5)}
            if careless
            else dict(KNOWN)
        )
        sent = person.rest("post", "/api/ratings/", {"turn": key, "answers": answers})
        assert sent.status_code == 201, sent.content
    return most


def test_a_careless_annotator_is_paused_within_the_configured_gold_items(
    agent: Actor, boss: Actor, rubric: None, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True
    EndpointFactory.create(events=["annotator.paused"])
    golds = queued(agent, *(f"g-{i}" for i in range(12)))
    queued(agent, *(f"t-{i}" for i in range(60)))
    for turn_id in golds:
        assert mark(boss, turn_id, KNOWN).status_code == 200
    settings_set(gold_rate=0.5, gold_min_items=5, gold_pause_below=0.7)
    careful, careless = human_actor("cara", "annotator"), human_actor("rand", "annotator")

    careless_or_careful(careful, careless=False, seed=1, most=24)
    rated = careless_or_careful(careless, careless=True, seed=7, most=40)

    assert not QueuePause.objects.filter(username="cara").exists()
    assert GoldResult.objects.filter(annotator="cara").count() == 12
    assert GoldResult.objects.filter(annotator="rand").count() == 5  # judged at the fifth
    assert rated == 9  # every other item gold, from the first
    refused = careless.rest("post", "/api/queue/next/")
    assert refused_at(refused, 409) == [["queue"]]
    (delivery,) = Delivery.objects.filter(event="annotator.paused")
    data = json.loads(delivery.body)["data"]
    assert (data["annotator"], data["items"], data["threshold"]) == ("rand", 5, 0.7)
    people = {p["annotator"]: p for p in boss.rest("get", "/api/gold/people/").json()["results"]}
    rand = people["rand"]
    assert rand["accuracy"] == pytest.approx(rand["matched"] / rand["compared"])
    assert rand["accuracy"] < 0.7 and rand["paused"]["items"] == 5
    assert rand["interval"] == pytest.approx(list(wilson(rand["matched"], rand["compared"])))
    assert people["cara"]["accuracy"] == 1.0 and people["cara"]["paused"] is None


def test_a_manager_resumes_a_paused_queue_and_later_items_judge_again(
    agent: Actor, boss: Actor, ann: Actor, rubric: None
) -> None:
    golds = queued(agent, *(f"g-{i}" for i in range(4)))
    queued(agent, "t-1")
    for turn_id in golds:
        assert mark(boss, turn_id, KNOWN).status_code == 200
    settings_set(gold_rate=0.5, gold_min_items=1, gold_pause_below=0.9)
    held = ann.rest("post", "/api/queue/next/").json()["turn"]["correlation_id"]
    wrong = {"verdict": "wrong", "quality": 1}
    assert ann.rest("post", "/api/ratings/", {"turn": held, "answers": wrong}).status_code == 201
    assert ann.rest("post", "/api/queue/next/").status_code == 409
    assert ann.rest("post", "/api/gold/people/ann/resume/").status_code == 403
    resumed = boss.rest("post", "/api/gold/people/ann/resume/")
    assert resumed.status_code == 200 and resumed.json()["paused"] is None
    assert refused_at(boss.rest("post", "/api/gold/people/ann/resume/"), 409) == [["username"]]
    assert ann.rest("post", "/api/queue/next/").status_code == 200


@pytest.mark.parametrize(
    ("given", "matches"), [(4, True), (4.4, True), (3.6, True), (4.5, False), (3, False)]
)
def test_a_numeric_known_answer_matches_within_a_tenth_of_its_range(
    agent: Actor, boss: Actor, ann: Actor, rubric: None, given: float, matches: bool
) -> None:
    (turn_id,) = queued(agent, "g-1")
    assert mark(boss, turn_id, {"quality": 4}).status_code == 200
    answers = {"verdict": "right", "quality": given}
    assert ann.rest("post", "/api/ratings/", {"turn": "g-1", "answers": answers}).status_code == 201
    (result,) = GoldResult.objects.all()
    assert (result.compared, result.matched) == (1, int(matches))


def test_feedback_of_the_default_form_is_scored_on_its_dimensions(
    agent: Actor, boss: Actor, ann: Actor
) -> None:
    (turn_id,) = queued(agent, "g-1")
    assert mark(boss, turn_id, {"correctness": 1.0}).status_code == 200
    item = feedback(
        feedback_id="fb-1", source="human", score=-1.0, correlation_id="g-1", rated_turn=turn()
    )
    assert ann.learn(feedback_req(item)).status_code == 200
    (result,) = GoldResult.objects.all()
    assert (result.annotator, result.compared, result.matched) == ("ann", 1, 0)


def test_a_paused_persons_queue_page_says_so_and_offers_no_turn(
    agent: Actor, boss: Actor, ann: Actor, rubric: None
) -> None:
    (turn_id,) = queued(agent, "g-1")
    queued(agent, "t-1")
    assert mark(boss, turn_id, KNOWN).status_code == 200
    settings_set(gold_rate=0.5, gold_min_items=1, gold_pause_below=0.5)
    wrong = {"verdict": "wrong", "quality": 1}
    assert ann.rest("post", "/api/ratings/", {"turn": "g-1", "answers": wrong}).status_code == 201
    page = ann.browser().get("/queue/")
    assert page.status_code == 200
    assert b"Your queue is paused" in page.content and b"t-1" not in page.content
    judging = ann.rest("post", "/api/queue/next/?kind=comparison")
    assert refused_at(judging, 409) == [["queue"]]
