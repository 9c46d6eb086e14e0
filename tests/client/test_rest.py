"""The REST side agents use, through the client: routing weights, turns, step runs, the
feedback an agent sent; and learn/stats and learn/adapt read as typed records."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import feedback.answers
import refinement.answers
from feedback.traces.steps import Step as HostStep
from feedback.turn_items import TurnItem
from learnportal_client import (
    AdaptedComponent,
    ComponentRecord,
    FeedbackPage,
    LearnClient,
    LearnError,
    ListedFeedback,
    NotFoundError,
    QueuedTurn,
    Routing,
    RunOutcome,
    ShownStep,
    Step,
    Turn,
    TurnDetail,
    TurnPage,
    TurnsCreated,
)
from learnportal_protocol.models import ComponentPerformanceRecord, RatedTurn

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tests.client.conftest import Portal

TURN = {"prompt": "Summarize", "response": "A summary.", "model": "writer"}


@pytest.mark.parametrize(
    ("mine", "hosts"),
    [
        (Routing, refinement.answers.Routing),
        (RunOutcome, refinement.answers.RunOutcome),
        (TurnsCreated, feedback.answers.TurnsCreated),
        (Turn, feedback.answers.Turn),
        (TurnPage, feedback.answers.TurnPage),
        (TurnDetail, feedback.answers.TurnDetail),
        (ShownStep, feedback.answers.StepAnswer),
        (FeedbackPage, feedback.answers.FeedbackPage),
        (ListedFeedback, feedback.answers.StoredFeedback),
        (ComponentRecord, ComponentPerformanceRecord),
    ],
)
def test_the_clients_rest_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], hosts: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(hosts.model_fields)


def test_routing_reads_the_weights_adapt_moves(client: LearnClient) -> None:
    assert client.routing().weights == {}
    client.experience(
        [
            {"action": {"component_name": "good", "success": True}, "reward": 1.0},
            {"action": {"component_name": "bad", "success": False}, "reward": -1.0},
        ]
    )
    client.adapt(strategy="ucb1")
    weights = client.routing().weights
    assert weights["good"] > weights["bad"]


def test_turns_are_queued_and_listed_with_filters_and_pages(client: LearnClient) -> None:
    client.submit_turns(
        [
            {"correlation_id": f"t{i}", "component_name": f"c{i % 2}", "rated_turn": TURN}
            for i in range(5)
        ]
    )
    page = client.turns(component_name="c0", limit=2)
    assert [t.correlation_id for t in page.results] == ["t4", "t2"]
    assert page.next
    rest = client.turns(cursor=page.next)
    assert [t.correlation_id for t in rest.results] == ["t0"]
    assert client.turns(unrated=True).results


def test_the_clients_steps_and_queued_turns_send_what_the_host_reads() -> None:
    assert set(Step.model_fields) == set(HostStep.model_fields)
    assert set(QueuedTurn.model_fields) == set(TurnItem.model_fields)
    assert set(ShownStep.model_fields) == set(Step.model_fields)


def test_a_turns_steps_are_sent_with_it_and_read_back(client: LearnClient) -> None:
    steps = [
        Step(step_id="s1", name="plan", kind="agent", start=1_800_000_000.0),
        Step(step_id="s2", parent_id="s1", name="search", kind="tool", status="error"),
    ]
    traced = QueuedTurn(correlation_id="traced", rated_turn=RatedTurn(**TURN), steps=steps)
    as_dict = {
        "correlation_id": "other",
        "rated_turn": TURN,
        "steps": [{"step_id": "x", "name": "y"}],
    }
    assert client.submit_turns([traced, as_dict]).created == 2
    (listed,) = client.turns(correlation_id="traced").results
    shown = client.turn(listed.id)
    assert [(s.step_id, s.parent_id, s.kind, s.status) for s in shown.steps] == [
        ("s1", "", "agent", "ok"),
        ("s2", "s1", "tool", "error"),
    ]
    with pytest.raises(NotFoundError):
        client.turn(listed.id + 1000)


def test_a_step_run_is_reported(client: LearnClient) -> None:
    outcome = client.report_run("summarize", "Summarize the article in two sentences.")
    assert outcome.step["runs_total"] == 1
    assert outcome.plan_id == ""
    assert outcome.reason  # the step is not read-write: no edit is taken, and it says why


def test_a_refused_rest_call_is_a_learn_error(client: LearnClient) -> None:
    with pytest.raises(LearnError) as refused:
        client.report_run("Not A Step!", "x")
    assert refused.value.code == "invalid"
    assert refused.value.status == 400


def test_stats_and_adapt_answer_typed_records(client: LearnClient) -> None:
    client.experience(
        [
            {"action": {"component_name": "good", "success": True, "duration_ms": 40.0}},
            {"action": {"component_name": "bad", "success": False}, "reward": -1.0},
        ]
    )
    (good,) = client.stats("good").components
    assert isinstance(good, ComponentRecord)
    assert (good.component_name, good.calls_total, good.avg_duration_ms) == ("good", 1, 40.0)
    moved = {record.component_name: record for record in client.adapt(strategy="ucb1").updated}
    assert all(isinstance(record, AdaptedComponent) for record in moved.values())
    assert moved["good"].weight == client.routing().weights["good"]


def test_an_agent_reads_the_feedback_it_sent_and_no_other(
    client: LearnClient, portal: Portal
) -> None:
    with LearnClient(portal.url, portal.token_for("other", "agent")) as other:
        other.feedback([{"feedback_id": "theirs", "polarity": "positive"}])
    client.feedback(
        [
            {"feedback_id": f"mine-{i}", "polarity": "negative", "score": -0.5, "ts": 100.0 + i}
            for i in range(3)
        ]
    )
    page = client.list_feedback(limit=2)
    assert [f.feedback_id for f in page.results] == ["mine-2", "mine-1"]
    assert page.results[0].source == "self"
    assert page.next
    rest = client.list_feedback(cursor=page.next)
    assert [f.feedback_id for f in rest.results] == ["mine-0"]
    assert client.list_feedback(since=101.5).results[0].feedback_id == "mine-2"


def test_a_bad_feedback_filter_is_invalid_naming_it(client: LearnClient) -> None:
    with pytest.raises(LearnError) as refused:
        client.list_feedback(polarity="great")
    assert (refused.value.code, refused.value.details[0]["loc"]) == ("invalid", ["polarity"])
