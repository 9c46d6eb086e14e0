"""Intake rules and judges through the client: a manager keeps the rules of what the queue
takes; a reviewer reads how each machine judge agrees with people."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import feedback.intake.answers as intake_hosts
import feedback.judges.answers as judge_hosts
from learnportal_client import (
    IntakeRule,
    IntakeRules,
    InvalidError,
    JudgeFigures,
    Judges,
    LearnClient,
    MarkedJudge,
    MarkedJudges,
    NotFoundError,
)
from tests.builders import feedback, turn
from tests.client.conftest import person_token

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tests.client.conftest import Portal


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        (IntakeRule, intake_hosts.StoredRule),
        (IntakeRules, intake_hosts.RuleList),
        (JudgeFigures, judge_hosts.JudgeFigures),
        (Judges, judge_hosts.JudgesAnswer),
        (MarkedJudge, judge_hosts.MarkedJudgeAnswer),
        (MarkedJudges, judge_hosts.MarkedJudges),
    ],
)
def test_the_clients_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], theirs: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(theirs.model_fields)


def person_client(portal: Portal, name: str, role: str) -> LearnClient:
    return LearnClient(portal.url, person_token(name, role))


def test_a_manager_keeps_the_intake_rules(portal: Portal, client: LearnClient) -> None:
    with person_client(portal, "lead", "manager") as lead:
        made = lead.intake_rule_add(name="a tenth", rate=0.1)
        with pytest.raises(InvalidError):
            lead.intake_rule_add(name="too much", rate=2)
        client.submit_turns([{"correlation_id": f"t-{i}", "rated_turn": turn()} for i in range(50)])
        (listed,) = lead.intake_rules().results
        assert (listed.id, listed.rate) == (made.id, 0.1) and listed.sent == listed.sent_last_day
        assert lead.intake_rule_change(made.id, name="a half", rate=0.5).rate == 0.5
        lead.intake_rule_remove(made.id)
        with pytest.raises(NotFoundError):
            lead.intake_rule_remove(made.id)


def test_a_reviewer_reads_the_judges(portal: Portal, client: LearnClient) -> None:
    client.submit_turns([{"correlation_id": "t-1", "rated_turn": turn()}])
    with person_client(portal, "pia", "annotator") as pia:
        pia.feedback([feedback(feedback_id="h-1", source="human", score=1.0, correlation_id="t-1")])
    client.feedback([feedback(feedback_id="j-1", source="self", score=0.5, correlation_id="t-1")])
    with person_client(portal, "rev", "reviewer") as rev:
        (figures,) = rev.judges().results
        assert (figures.judge, figures.items) == ("token:client-agent", 1)
        assert figures.mae.value == pytest.approx(0.5)
        assert figures.weight is None  # one item: not measured yet


def test_a_manager_marks_a_person_as_a_judge(portal: Portal) -> None:
    person_token("bot", "annotator")
    with person_client(portal, "lead", "manager") as lead:
        assert lead.judge_mark("bot").judge == "user:bot"
        assert [m.username for m in lead.judge_marks().results] == ["bot"]
        with pytest.raises(InvalidError):
            lead.judge_mark("nobody")
        lead.judge_unmark("bot")
        with pytest.raises(NotFoundError):
            lead.judge_unmark("bot")
