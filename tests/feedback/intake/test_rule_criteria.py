"""Intake rules' other criteria (issue 27, item 4): a key of the turn's metadata, and "where
the judge is unsure of itself against people" (its weight below a bound, or not measured);
and every turn a rule lets in told by rule, live and by webhook."""

from __future__ import annotations

import json
from typing import Any

import pytest

from feedback.models import Turn
from tests.builders import feedback, feedback_req, turn
from tests.factories import EndpointFactory
from tests.feedback.intake.test_intake_rules import admitted, rule
from tests.harness import Actor, http_send, human_actor, ok, refused_at, token_actor
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db


def queued_with(agent: Actor, environments: dict[str, Any]) -> None:
    body = {
        "turns": [
            {"correlation_id": key, "rated_turn": turn(environment=environment)}
            for key, environment in environments.items()
        ]
    }
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def scored(key: str, score: float, source: str, feedback_id: str = "") -> dict[str, Any]:
    polarity = "positive" if score > 0 else "negative"
    return feedback(
        feedback_id=feedback_id or f"{source}-{key}",
        source=source,
        score=score,
        polarity=polarity,
        correlation_id=key,
    )


def test_a_metadata_key_takes_the_turns_whose_environment_holds_it(
    agent: Actor, boss: Actor
) -> None:
    rule(boss, name="enterprise customers", metadata_key="customer", rate=1.0)
    queued_with(
        agent,
        {
            "acme": {"customer": "acme", "region": "eu"},
            "nested": {"account": {"customer": "x"}},
            "listed": ["customer"],
            "bare": None,
        },
    )
    assert admitted() == {"acme"}


def test_a_feedback_rule_with_a_metadata_key_lets_in_a_stored_turn_that_holds_it(
    agent: Actor, boss: Actor, env: Actor
) -> None:
    rule(boss, name="beta failures", source="env", polarity="negative", metadata_key="beta", rate=1)
    queued_with(agent, {"in-beta": {"beta": True}, "not-beta": {"stable": True}})
    assert admitted() == set()
    ok(http_send(env, feedback_req(scored("in-beta", -1, "env"), scored("not-beta", -1, "env"))))
    assert admitted() == {"in-beta"}


def calibrated(judge: Actor, agreeing: bool, turns: int = 20) -> None:
    """People and the judge score the same `turns` turns: it says what they say, or the
    opposite."""
    person = human_actor(f"rater-{judge.name}", "annotator")
    keys = [f"cal-{judge.name}-{i}" for i in range(turns)]
    truth = {key: 1.0 if i % 2 else -1.0 for i, key in enumerate(keys)}
    ok(http_send(person, feedback_req(*(scored(k, s, "human") for k, s in truth.items()))))
    said = [scored(k, s if agreeing else -s, "env") for k, s in truth.items()]
    ok(http_send(judge, feedback_req(*said)))


def test_where_the_judge_disagrees_with_people_or_is_not_measured_its_turns_go_to_people(
    agent: Actor, boss: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_JUDGE_WEIGHT_SECONDS = 0
    careful, careless = (
        token_actor("careful", "environment"),
        token_actor("careless", "environment"),
    )
    calibrated(careful, agreeing=True)
    calibrated(careless, agreeing=False)
    made = rule(boss, name="judge unsure", judge_agreement_below=0.5, rate=1.0)
    assert made["judge_agreement_below"] == 0.5
    queued_with(agent, {"by-careful": None, "by-careless": None, "by-new": None, "by-people": None})
    newcomer = token_actor("newcomer", "environment")
    ok(http_send(careful, feedback_req(scored("by-careful", 1, "env"))))
    ok(http_send(careless, feedback_req(scored("by-careless", 1, "env"))))
    ok(http_send(newcomer, feedback_req(scored("by-new", 1, "env"))))
    person = human_actor("pia", "annotator")
    ok(http_send(person, feedback_req(scored("by-people", 1, "human"))))
    new = admitted() - {key for key in admitted() if key.startswith("cal-")}
    assert new == {"by-careless", "by-new"}


def test_a_rules_bound_on_the_judge_is_checked(boss: Actor) -> None:
    for bad in (0, 1.5, "half"):
        response = boss.rest(
            "post", "/api/intake-rules/", {"name": "x", "rate": 1, "judge_agreement_below": bad}
        )
        assert refused_at(response, 400) == [["judge_agreement_below"]]
    long_key = boss.rest(
        "post", "/api/intake-rules/", {"name": "x", "rate": 1, "metadata_key": "k" * 201}
    )
    assert refused_at(long_key, 400) == [["metadata_key"]]
    assert boss.rest("get", "/api/intake-rules/").json()["results"] == []


def test_the_turns_a_rule_lets_in_are_told_by_webhook_once_a_write(
    agent: Actor, boss: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True
    EndpointFactory.create(events=["intake.admitted"])
    made = rule(boss, name="everything", rate=1.0)
    queued_with(agent, {f"t-{i}": None for i in range(30)})
    (delivery,) = Delivery.objects.filter(event="intake.admitted")
    data = json.loads(delivery.body)["data"]
    assert (data["rule"], data["name"], data["count"]) == (made["id"], "everything", 30)
    assert len(data["correlation_ids"]) == 20
    assert set(data["correlation_ids"]) <= admitted()
    assert Turn.objects.filter(admitted=True).count() == 30


def test_a_project_without_rules_tells_nothing(agent: Actor, settings: Any) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True
    EndpointFactory.create(events=["intake.admitted"])
    queued_with(agent, {"t-1": None})
    assert not Delivery.objects.filter(event="intake.admitted").exists()
