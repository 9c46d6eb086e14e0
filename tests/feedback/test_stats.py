"""learn/stats: ComponentPerformanceRecords built from calls and feedback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from tests.builders import experience, experience_req, feedback, feedback_req, stats_req
from tests.harness import default_pk

if TYPE_CHECKING:
    from tests.harness import Actor, Send

RECORD_FIELDS = {
    "component_name",
    "calls_total",
    "calls_success",
    "calls_failed",
    "avg_duration_ms",
    "avg_score",
    "last_called",
    "p95_duration_ms",
}


def call(component: str, *, reward: float, ts: float, **action: object) -> dict[str, Any]:
    return experience(component, reward=reward, ts=ts, action=action)


def test_stats_count_calls_with_the_success_rule(transport: Send, agent: Actor) -> None:
    calls = [
        call("click", reward=-1.0, ts=1000.0, success=True, duration_ms=100.0),
        call("click", reward=1.0, ts=1004.0, success=False, duration_ms=200.0),
        call("click", reward=0.0, ts=1003.0, duration_ms=300.0),
        call("click", reward=-0.1, ts=1001.0, duration_ms=400.0),
        call("click", reward=0.5, ts=1002.0),
        experience("", reward=1.0),
    ]
    status, reply = transport(agent, experience_req(*calls))
    assert (status, reply["stored"]) == (200, 6)
    status, reply = transport(agent, stats_req("click"))
    assert status == 200, reply
    (record,) = reply["components"]
    assert set(record) == RECORD_FIELDS
    assert record["component_name"] == "click"
    assert (record["calls_total"], record["calls_success"], record["calls_failed"]) == (5, 3, 2)
    assert record["avg_duration_ms"] == pytest.approx(250.0)
    assert record["last_called"] == 1004.0
    assert record["avg_score"] == 0.0


def test_stats_add_up_across_requests(transport: Send, agent: Actor) -> None:
    transport(agent, experience_req(call("t", reward=1.0, ts=5.0, duration_ms=10.0)))
    transport(agent, experience_req(call("t", reward=-1.0, ts=2.0, duration_ms=30.0)))
    (record,) = transport(agent, stats_req("t"))[1]["components"]
    assert (record["calls_total"], record["calls_success"], record["calls_failed"]) == (2, 1, 1)
    assert record["avg_duration_ms"] == pytest.approx(20.0)
    assert record["last_called"] == 5.0


def test_stats_of_all_components_are_listed_when_no_name_is_given(
    transport: Send, agent: Actor, ann: Actor
) -> None:
    transport(
        agent,
        experience_req(call("b-tool", reward=1.0, ts=1.0), call("a-tool", reward=1.0, ts=1.0)),
    )
    transport(agent, feedback_req(feedback(component_name="c-tool", score=-0.5)))
    status, reply = transport(ann, stats_req(""))
    assert status == 200, reply
    names = [record["component_name"] for record in reply["components"]]
    assert sorted(names) == ["a-tool", "b-tool", "c-tool"]
    by_name = {record["component_name"]: record for record in reply["components"]}
    assert by_name["c-tool"]["avg_score"] == -0.5
    assert by_name["c-tool"]["calls_total"] == 0
    assert all(set(record) == RECORD_FIELDS for record in reply["components"])


def test_stats_for_an_unknown_component_are_not_found(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, stats_req("nobody"))
    assert (status, reply["code"]) == (404, "not_found")


def test_stats_with_no_data_at_all_list_nothing(transport: Send, agent: Actor) -> None:
    status, reply = transport(agent, stats_req(""))
    assert (status, reply["components"]) == (200, [])


def test_p95_duration_is_within_one_percent_of_the_exact_percentile(
    transport: Send, agent: Actor
) -> None:
    rng = np.random.default_rng(20240519)
    durations = rng.lognormal(mean=5.0, sigma=1.3, size=5000)
    for batch in np.array_split(durations, 5):
        items = [call("skewed", reward=0.0, ts=1.0, duration_ms=float(d)) for d in batch]
        status, reply = transport(agent, experience_req(*items))
        assert (status, reply["stored"]) == (200, len(items))
    (record,) = transport(agent, stats_req("skewed"))[1]["components"]
    exact = float(np.percentile(durations, 95))
    assert record["p95_duration_ms"] == pytest.approx(exact, rel=0.01)
    assert record["avg_duration_ms"] == pytest.approx(float(durations.mean()), rel=1e-9)
    assert record["calls_total"] == 5000


def test_p95_of_few_calls_is_close_to_the_largest(transport: Send, agent: Actor) -> None:
    items = [call("few", reward=0.0, ts=1.0, duration_ms=d) for d in (10.0, 20.0, 1000.0)]
    transport(agent, experience_req(*items))
    (record,) = transport(agent, stats_req("few"))[1]["components"]
    assert record["p95_duration_ms"] == pytest.approx(np.percentile([10, 20, 1000], 95), rel=0.01)


def test_the_stats_read_gives_each_components_own_record(agent: Actor, env: Actor) -> None:
    from feedback.models import ComponentStats
    from feedback.selectors.components import component_records

    agent.learn(experience_req(experience("b"), experience("a")))
    env.learn(feedback_req(feedback(component_name="a")))
    assert component_records(default_pk()) == [
        row.as_record() for row in ComponentStats.objects.order_by("component_name")
    ]
    assert component_records(default_pk(), "a") == [
        ComponentStats.objects.get(component_name="a").as_record()
    ]
