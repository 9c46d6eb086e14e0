"""The REST side agents use, through the client: routing weights, turns, step runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import feedback.answers
import refinement.answers
from learnportal_client import LearnError, Routing, RunOutcome, Turn, TurnPage, TurnsCreated

if TYPE_CHECKING:
    from pydantic import BaseModel

    from learnportal_client import LearnClient

TURN = {"prompt": "Summarize", "response": "A summary.", "model": "writer"}


@pytest.mark.parametrize(
    ("mine", "hosts"),
    [
        (Routing, refinement.answers.Routing),
        (RunOutcome, refinement.answers.RunOutcome),
        (TurnsCreated, feedback.answers.TurnsCreated),
        (Turn, feedback.answers.Turn),
        (TurnPage, feedback.answers.TurnPage),
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
