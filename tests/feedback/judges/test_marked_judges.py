"""People marked as judges (issue 27, item 5): a manager marks a member of the project; their
ratings are then measured against the other people's as a machine judge's are (named
`user:<username>`), and, where the project weighs judges, count in the stats by that
agreement; their ratings stay people's ratings in the exports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings

from core.projects.models import Project
from feedback.judges.models import MarkedJudge
from tests.builders import feedback, feedback_req, stats_req
from tests.harness import Actor, default_pk, http_send, human_actor, ok, refused_at

if TYPE_CHECKING:
    from pytest_django import Settings

pytestmark = pytest.mark.django_db

URL = "/api/judges/marked/"
TURNS = 24


@pytest.fixture(autouse=True)
def measured_each_time(settings: Settings) -> None:
    settings.LEARNPORTAL_JUDGE_WEIGHT_SECONDS = 0


def scored(key: str, score: float, name: str, component: str = "") -> dict[str, Any]:
    return feedback(
        feedback_id=f"{name}-{key}",
        correlation_id=key,
        score=score,
        polarity="positive" if score > 0 else "negative",
        source="human",
        component_name=component,
    )


def rate_all(person: Actor, agreeing: bool) -> None:
    """The person scores TURNS turns: as the truth, or its opposite."""
    items = [
        scored(f"t-{i}", (1.0 if i % 2 else -1.0) * (1 if agreeing else -1), person.name)
        for i in range(TURNS)
    ]
    ok(http_send(person, feedback_req(*items)))


def judges(reader: Actor) -> dict[str, dict[str, Any]]:
    return {row["judge"]: row for row in reader.rest("get", "/api/judges/").json()["results"]}


def test_a_marked_person_is_measured_against_the_other_people(boss: Actor, rev: Actor) -> None:
    pia, ole, bot = (human_actor(name, "annotator") for name in ("pia", "ole", "bot"))
    for person in (pia, ole):
        rate_all(person, agreeing=True)
    rate_all(bot, agreeing=False)
    assert judges(rev) == {}
    marked = boss.rest("post", URL, {"username": "bot"})
    assert marked.status_code == 200, marked.content
    assert marked.json()["judge"] == "user:bot"
    row = judges(rev)["user:bot"]
    assert row["items"] == TURNS
    assert row["mae"]["value"] == pytest.approx(2.0)  # always the opposite of the people
    assert row["kappa"]["value"] < 0
    assert row["weight"] == 0.0  # alpha below 0, clipped


def test_where_the_project_weighs_judges_a_marked_persons_ratings_count_by_agreement(
    boss: Actor,
) -> None:
    Project.objects.filter(pk=default_pk()).update(judges_weighed=True)
    pia, bot = human_actor("pia", "annotator"), human_actor("bot", "annotator")
    rate_all(pia, agreeing=True)
    rate_all(bot, agreeing=False)
    boss.rest("post", URL, {"username": "bot"})
    ok(http_send(pia, feedback_req(scored("new-1", 1.0, "pia", component="c"))))
    ok(http_send(bot, feedback_req(scored("new-1", -1.0, "bot", component="c"))))
    body = ok(http_send(boss, stats_req("c")))
    assert body["components"][0]["avg_score"] == pytest.approx(1.0)  # the bot's counts 0
    assert settings.LEARNPORTAL_JUDGE_MIN_ITEMS <= TURNS


def test_unmarked_people_count_in_full_whatever_their_agreement(boss: Actor) -> None:
    Project.objects.filter(pk=default_pk()).update(judges_weighed=True)
    pia, ole = human_actor("pia", "annotator"), human_actor("ole", "annotator")
    rate_all(pia, agreeing=True)
    rate_all(ole, agreeing=False)
    ok(http_send(pia, feedback_req(scored("new-1", 1.0, "pia", component="c"))))
    ok(http_send(ole, feedback_req(scored("new-1", -1.0, "ole", component="c"))))
    body = ok(http_send(boss, stats_req("c")))
    assert body["components"][0]["avg_score"] == pytest.approx(0.0)


def test_a_manager_marks_and_unmarks_members_and_nobody_else_may(
    boss: Actor, ann: Actor, rev: Actor
) -> None:
    human_actor("bot", "annotator")
    assert refused_at(boss.rest("post", URL, {"username": "stranger"}), 400) == [["username"]]
    assert rev.rest("post", URL, {"username": "bot"}).status_code == 403
    assert ann.rest("get", URL).status_code == 403
    assert boss.rest("post", URL, {"username": "bot"}).status_code == 200
    assert boss.rest("post", URL, {"username": "bot"}).status_code == 200  # once
    listed = boss.rest("get", URL).json()["results"]
    assert [(m["username"], m["by"]) for m in listed] == [("bot", "boss")]
    assert boss.rest("delete", f"{URL}bot/").status_code == 204
    assert boss.rest("delete", f"{URL}bot/").status_code == 404
    assert not MarkedJudge.objects.exists()
