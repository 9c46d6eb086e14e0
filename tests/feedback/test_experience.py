"""learn/experience: storing, roles, limits, env forwarding and safe retries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
import pytest

from feedback.models import ComponentStats, Experience, Feedback
from tests.builders import experience, experience_req, stats_req, stored
from tests.factories import StoreValueFactory
from tests.harness import default_pk

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Actor, Send


def test_an_experience_is_stored_with_every_field(transport: Send, agent: Actor) -> None:
    item = {
        "experience_id": "exp_abc",
        "state": {"page": "home"},
        "action": {"component_name": "click", "input": {"selector": "#btn"}, "duration_ms": 12},
        "reward": 0.5,
        "next_state": {"page": "result"},
        "done": True,
        "episode_id": "ep_1",
        "step": 3,
        "ts": 1716123457.1,
    }
    status, reply = transport(agent, experience_req(item))
    assert status == 200, reply
    assert reply["stored"] == 1
    row = Experience.objects.get(experience_id="exp_abc")
    assert orjson.loads(row.state) == {"page": "home"}
    assert orjson.loads(row.next_state) == {"page": "result"}
    action = orjson.loads(row.action)
    assert action == {"component_name": "click", "input": {"selector": "#btn"}, "duration_ms": 12}
    assert (row.component_name, row.reward, row.done, row.episode_id, row.step, row.ts) == (
        "click",
        0.5,
        True,
        "ep_1",
        3,
        1716123457.1,
    )


def test_an_action_is_stored_as_its_fields_in_order_without_the_empty_ones(
    transport: Send, agent: Actor
) -> None:
    item = {
        "experience_id": "exp_fields",
        "action": {"action_prob": 1, "success": False, "input": {"kept": None, "n": [1, None]}},
    }
    status, reply = transport(agent, experience_req(item))
    assert status == 200, reply
    row = Experience.objects.get(experience_id="exp_fields")
    # None inside the free JSON input stays; a field left out or None does not, but for the
    # component's name, which defaults to "".
    assert list(orjson.loads(row.action).items()) == [
        ("component_name", ""),
        ("input", {"kept": None, "n": [1, None]}),
        ("success", False),
        ("action_prob", 1.0),
    ]


def test_an_empty_experience_request_stores_nothing(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, {"type": "learn/experience/req"})
    assert status == 200, reply
    assert reply["stored"] == 0
    assert stored()["experience"] == 0


def test_environment_and_admin_may_store_experiences(
    transport: Send, env: Actor, boss: Actor
) -> None:
    for actor in (env, boss):
        status, reply = transport(actor, experience_req(experience()))
        assert (status, reply["stored"]) == (200, 1)


@pytest.mark.parametrize("who", ["ann", "rev"])
def test_people_other_than_admins_cannot_store_experiences(
    transport: Send, who: str, request: pytest.FixtureRequest
) -> None:
    actor = request.getfixturevalue(who)
    status, reply = transport(actor, experience_req(experience("c")))
    assert (status, reply["code"]) == (403, "forbidden")
    assert stored()["experience"] == 0


def test_a_batch_with_one_bad_experience_stores_nothing_and_names_it(
    transport: Send, agent: Actor
) -> None:
    items = [experience("c"), experience("c", reward="high"), experience("c", step=-0.5)]
    status, reply = transport(agent, experience_req(*items))
    assert (status, reply["code"]) == (400, "invalid")
    assert [d["loc"] for d in reply["details"]] == [
        ["experiences", 1, "reward"],
        ["experiences", 2, "step"],
    ]
    assert stored() == {"feedback": 0, "experience": 0, "turn": 0, "components": 0}


def test_a_retry_with_the_same_ids_stores_nothing_twice_and_still_counts(
    transport: Send, agent: Actor
) -> None:
    request = experience_req(*[experience("c", action={"duration_ms": 10.0}) for _ in range(3)])
    status, first = transport(agent, request)
    assert (status, first["stored"]) == (200, 3)
    after_first = stored()
    _, stats_first = transport(agent, stats_req("c"))
    status, second = transport(agent, request)
    assert (status, second["stored"]) == (200, 3)
    assert stored() == after_first
    _, stats_second = transport(agent, stats_req("c"))
    assert stats_second["components"] == stats_first["components"]
    assert stats_second["components"][0]["calls_total"] == 3


def test_a_kept_experience_resent_as_a_library_remakes_it_is_stored_once(
    transport: Send, agent: Actor
) -> None:
    item = experience("c", ts=1716000000.0)
    assert transport(agent, experience_req(item))[1]["stored"] == 1
    remade = {
        **item,
        "ts": 1716000099.5,
        "action": {**item["action"], "input": None, "success": None},
        "state": {},
        "next_state": {},
        "done": False,
        "step": 0,
    }
    status, reply = transport(agent, experience_req(remade))
    assert (status, reply.get("stored")) == (200, 1), reply
    assert stored()["experience"] == 1
    assert Experience.objects.get(experience_id=item["experience_id"]).ts == 1716000000.0


def test_the_same_experience_id_with_other_content_is_a_conflict(
    transport: Send, agent: Actor
) -> None:
    item = experience("c")
    transport(agent, experience_req(item))
    before = stored()
    status, reply = transport(agent, experience_req(experience("c"), {**item, "reward": -1.0}))
    assert (status, reply["code"]) == (409, "conflict")
    assert [d["loc"] for d in reply["details"]] == [["experiences", 1, "experience_id"]]
    assert stored() == before


def test_the_same_experience_id_twice_in_one_batch_with_other_content_is_a_conflict(
    transport: Send, agent: Actor
) -> None:
    item = experience("c")
    status, reply = transport(agent, experience_req(item, {**item, "done": True}))
    assert (status, reply["code"]) == (409, "conflict")
    assert stored()["experience"] == 0


def test_an_experience_records_the_probability_the_routing_in_force_gave_its_component(
    transport: Send, agent: Actor
) -> None:
    """PPO's behaviour policy: each known component competes at its weight (0.5 never weighted)."""

    StoreValueFactory.create(component="alpha", value=0.6)
    StoreValueFactory.create(component="off", value=0.0)
    ComponentStats.objects.create(project_id=default_pk(), component_name="beta")
    items = {
        "e-alpha": experience("alpha"),
        "e-new": experience("gamma"),
        "e-off": experience("off"),
        "e-sent": experience("alpha", action={"action_prob": 0.9}),
        "e-none": experience(),
    }
    request = experience_req(*[{**item, "experience_id": key} for key, item in items.items()])
    status, reply = transport(agent, request)
    assert (status, reply["stored"]) == (200, 5), reply
    probabilities = dict(Experience.objects.values_list("experience_id", "behaviour_prob"))
    # alpha 0.6, beta 0.5 (known, unweighted), gamma 0.5 (new in this batch), off 0.0.
    assert probabilities["e-alpha"] == pytest.approx(0.6 / 1.6)
    assert probabilities["e-new"] == pytest.approx(0.5 / 1.6)
    assert probabilities["e-off"] is None
    assert probabilities["e-sent"] == pytest.approx(0.9)
    assert probabilities["e-none"] is None


# --- limits -----------------------------------------------------------------------------------


def test_more_experiences_than_the_batch_limit_is_too_large(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 3
    status, reply = transport(agent, experience_req(*[experience() for _ in range(3)]))
    assert status == 200, reply
    status, reply = transport(agent, experience_req(*[experience() for _ in range(4)]))
    assert (status, reply["code"]) == (413, "too_large")
    assert stored()["experience"] == 3


def test_past_the_limit_with_reject_nothing_is_stored(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_EXPERIENCE_OVERFLOW = "reject"
    settings.LEARNPORTAL_EXPERIENCE_LIMIT = 3
    status, reply = transport(agent, experience_req(experience("c"), experience("c")))
    assert status == 200, reply
    before = stored()
    _, stats_before = transport(agent, stats_req("c"))
    status, reply = transport(agent, experience_req(experience("c"), experience("c")))
    assert (status, reply["code"]) == (429, "quota_exceeded")
    assert stored() == before
    assert transport(agent, stats_req("c"))[1]["components"] == stats_before["components"]
    status, reply = transport(agent, experience_req(experience("c")))
    assert (status, reply["stored"]) == (200, 1)
    assert stored()["experience"] == 3


def test_a_retry_does_not_use_up_the_quota(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_EXPERIENCE_OVERFLOW = "reject"
    settings.LEARNPORTAL_EXPERIENCE_LIMIT = 2
    request = experience_req(experience(), experience())
    assert transport(agent, request)[0] == 200
    status, reply = transport(agent, request)
    assert (status, reply["stored"]) == (200, 2)


def test_past_the_limit_with_evict_the_oldest_are_dropped(
    transport: Send, agent: Actor, env: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_EXPERIENCE_LIMIT = 3
    env_ids = [f"env-{i}" for i in range(3)]
    transport(env, experience_req(*[experience(experience_id=i) for i in env_ids]))
    ids = [f"e-{i}" for i in range(6)]
    for start, end in ((0, 2), (2, 5), (5, 6)):
        request = experience_req(*[experience(experience_id=i) for i in ids[start:end]])
        status, reply = transport(agent, request)
        assert (status, reply["stored"]) == (200, end - start)
    assert set(
        Experience.objects.filter(owner="token:agent-1").values_list("experience_id", flat=True)
    ) == {"e-3", "e-4", "e-5"}
    kept_env = Experience.objects.exclude(owner="token:agent-1").values_list(
        "experience_id", flat=True
    )
    assert set(kept_env) == set(env_ids)


def test_one_batch_over_the_limit_keeps_its_newest(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_EXPERIENCE_LIMIT = 2
    items = [experience(experience_id=f"x-{i}") for i in range(5)]
    status, reply = transport(agent, experience_req(*items))
    assert (status, reply["stored"]) == (200, 5)
    assert set(Experience.objects.values_list("experience_id", flat=True)) == {"x-3", "x-4"}


# --- an environment's rewards are its feedback ----------------------------------------------


def test_environment_experiences_create_env_feedback_with_the_clipped_reward(
    transport: Send, env: Actor
) -> None:
    rewards = {"r-big": 3.0, "r-small": -0.25, "r-zero": 0.0, "r-low": -7.5}
    items = [experience("click", experience_id=key, reward=r) for key, r in rewards.items()]
    status, reply = transport(env, experience_req(*items))
    assert status == 200, reply
    rows = {row.correlation_id: row for row in Feedback.objects.all()}
    assert set(rows) == set(rewards)
    assert {key: row.score for key, row in rows.items()} == {
        "r-big": 1.0,
        "r-small": -0.25,
        "r-zero": 0.0,
        "r-low": -1.0,
    }
    assert {row.source for row in rows.values()} == {"env"}
    assert {row.component_name for row in rows.values()} == {"click"}
    _, stats = transport(env, stats_req("click"))
    assert stats["components"][0]["avg_score"] == pytest.approx((1.0 - 0.25 + 0.0 - 1.0) / 4)


def test_a_retried_environment_experience_is_forwarded_once(transport: Send, env: Actor) -> None:
    request = experience_req(experience("click", reward=0.5))
    transport(env, request)
    transport(env, request)
    assert Feedback.objects.count() == 1
    _, stats = transport(env, stats_req("click"))
    assert stats["components"][0]["avg_score"] == 0.5


def test_environment_rewards_are_not_forwarded_when_turned_off(
    transport: Send, env: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_FORWARD_ENV_REWARDS = False
    status, reply = transport(env, experience_req(experience("click", reward=1.0)))
    assert (status, reply["stored"]) == (200, 1)
    assert Feedback.objects.count() == 0


def test_agent_experiences_are_not_forwarded_as_feedback(transport: Send, agent: Actor) -> None:
    transport(agent, experience_req(experience("click", reward=1.0)))
    assert Feedback.objects.count() == 0
    assert stored()["experience"] == 1
