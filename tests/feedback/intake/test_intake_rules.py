"""Intake rules (issue 27, item 4): a project with rules takes into its queue only the turns a
rule takes, "10% of all turns" or "every negative env feedback", each turn once however many
rules match, the rule's priority added to the turn's; managers see how many each let in."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.intake.models import Admission
from feedback.models import Turn
from tests.builders import feedback, feedback_req, turn
from tests.harness import Actor, refused_at, token_actor

pytestmark = pytest.mark.django_db

EVERY_TENTH = {"name": "a tenth of all turns", "rate": 0.1}
NEGATIVE_ENV = {"name": "negative env", "source": "env", "polarity": "negative", "rate": 1.0}


def rule(manager: Actor, **fields: Any) -> dict[str, Any]:
    response = manager.rest("post", "/api/intake-rules/", fields)
    assert response.status_code == 201, response.content
    made: dict[str, Any] = response.json()
    return made


def queued(agent: Actor, keys: list[str]) -> None:
    for start in range(0, len(keys), 1000):
        part = keys[start : start + 1000]
        body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in part]}
        assert agent.rest("post", "/api/turns/", body).status_code == 201


def admitted() -> set[str]:
    return set(Turn.objects.filter(admitted=True).values_list("correlation_id", flat=True))


def test_a_project_without_rules_takes_every_turn(agent: Actor) -> None:
    queued(agent, ["t-1", "t-2"])
    assert admitted() == {"t-1", "t-2"}


def test_a_rule_of_ten_percent_takes_ten_percent_of_ten_thousand_turns(
    agent: Actor, boss: Actor, ann: Actor
) -> None:
    made = rule(boss, **EVERY_TENTH)
    queued(agent, [f"t-{i}" for i in range(10_000)])
    share = len(admitted()) / 10_000
    assert 0.08 <= share <= 0.12
    listed = boss.rest("get", "/api/intake-rules/").json()["results"]
    assert [(r["id"], r["sent"], r["sent_last_day"]) for r in listed] == [
        (made["id"], len(admitted()), len(admitted()))
    ]
    held = ann.rest("post", "/api/queue/next/").json()["turn"]["correlation_id"]
    assert held in admitted()


def test_negative_env_feedback_brings_its_turn_in_with_the_rules_priority(
    agent: Actor, boss: Actor, ann: Actor
) -> None:
    rule(boss, **NEGATIVE_ENV, priority=5)
    queued(agent, ["calm", "bad"])
    assert admitted() == set()
    assert ann.rest("post", "/api/queue/next/").status_code == 204
    env = token_actor("gym", "environment")
    judged = feedback(
        feedback_id="f-bad", source="env", score=-0.8, polarity="negative", correlation_id="bad"
    )
    assert env.learn(feedback_req(judged)).status_code == 200
    assert admitted() == {"bad"}
    assert Turn.objects.get(correlation_id="bad").priority >= 5
    assert ann.rest("post", "/api/queue/next/").json()["turn"]["correlation_id"] == "bad"


def test_a_turn_enters_once_however_many_rules_match(agent: Actor, boss: Actor) -> None:
    first = rule(boss, name="all", rate=1.0, priority=1)
    rule(boss, name="all again", rate=1.0, priority=0)
    queued(agent, ["t-1"])
    env = token_actor("gym", "environment")
    rule(boss, **NEGATIVE_ENV)
    judged = feedback(feedback_id="f-1", source="env", score=-1.0, correlation_id="t-1")
    assert env.learn(feedback_req(judged)).status_code == 200
    (entry,) = Admission.objects.all()
    assert entry.rule_id == first["id"]


def test_a_rule_is_checked_and_refused_whole_and_only_managers_keep_rules(
    boss: Actor, ann: Actor, rev: Actor, agent: Actor
) -> None:
    assert refused_at(boss.rest("post", "/api/intake-rules/", {"name": "x", "rate": 2})) == [
        ["rate"]
    ]
    bad_range = {"name": "x", "rate": 1, "score_min": 0.5, "score_max": -0.5}
    assert refused_at(boss.rest("post", "/api/intake-rules/", bad_range)) == [["score_max"]]
    assert refused_at(boss.rest("post", "/api/intake-rules/", {"rate": 1})) == [["name"]]
    for person in (ann, rev, agent):
        assert person.rest("post", "/api/intake-rules/", EVERY_TENTH).status_code == 403
        assert person.rest("get", "/api/intake-rules/").status_code == 403
    made = rule(boss, **EVERY_TENTH)
    changed = boss.rest("put", f"/api/intake-rules/{made['id']}/", {**EVERY_TENTH, "rate": 0.5})
    assert changed.status_code == 200 and changed.json()["rate"] == 0.5
    assert boss.rest("delete", f"/api/intake-rules/{made['id']}/").status_code == 204
    assert refused_at(boss.rest("delete", f"/api/intake-rules/{made['id']}/"), 404) == [["rule"]]


def test_a_disabled_rule_takes_nothing_and_a_project_left_with_none_takes_all(
    agent: Actor, boss: Actor
) -> None:
    made = rule(boss, **NEGATIVE_ENV)
    queued(agent, ["before"])
    off = boss.rest("put", f"/api/intake-rules/{made['id']}/", {**NEGATIVE_ENV, "enabled": False})
    assert off.status_code == 200
    queued(agent, ["after"])
    assert admitted() == {"after"}
