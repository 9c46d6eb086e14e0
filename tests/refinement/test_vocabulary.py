"""Risk levels, plan statuses, review kinds and `learnings_access` are each defined once
(refinement.vocabulary), and "a read-write step needs an objective" is one rule, met the same
way by an admin's PUT, a proposal and a run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

import pytest

from learnportal_protocol.messages import LearnRefinementReviewResponse
from refinement.answers import PlanState, ProposalReview, StepState
from refinement.models import Plan, Proposal, Review, Step
from refinement.proposals import PROPOSAL_VARIANTS
from refinement.trust_region import max_step
from refinement.vocabulary import (
    LearningsAccess,
    PlanStatus,
    ReviewKind,
    RiskLevel,
    lacks_objective,
)
from tests.builders import review_req
from tests.factories import StepFactory
from tests.harness import Send, ok
from tests.refinement.learning_store.helpers import make_step, report_run, skill_edit

if TYPE_CHECKING:
    from tests.harness import Actor

# --- one definition each ------------------------------------------------------------------------


def test_risk_levels_compare_by_how_much_they_risk_not_alphabetically() -> None:
    assert RiskLevel.NONE < RiskLevel.LOW < RiskLevel.MEDIUM < RiskLevel.HIGH
    assert max(["medium", RiskLevel.HIGH, "low"], key=RiskLevel) == RiskLevel.HIGH
    assert RiskLevel("high") > "medium"


@pytest.mark.parametrize(
    ("model", "field", "words"),
    [
        (Step, "learnings_access", LearningsAccess),
        (Plan, "status", PlanStatus),
        (Proposal, "risk_level", RiskLevel),
        (Review, "kind", ReviewKind),
        (Review, "risk_level", RiskLevel),
    ],
)
def test_a_models_choices_are_its_vocabularys_words(model: Any, field: str, words: Any) -> None:
    assert [value for value, _ in model._meta.get_field(field).choices] == [w.value for w in words]


def test_the_answers_say_the_same_words() -> None:
    assert StepState.model_fields["learnings_access"].annotation is LearningsAccess
    assert PlanState.model_fields["status"].annotation is PlanStatus
    assert ProposalReview.model_fields["kind"].annotation is ReviewKind
    assert ProposalReview.model_fields["risk_level"].annotation is RiskLevel


def test_a_review_over_learn_answers_every_risk_level_but_none() -> None:
    levels = get_args(LearnRefinementReviewResponse.model_fields["risk_level"].annotation)
    assert set(levels) == set(RiskLevel) - {RiskLevel.NONE}


def test_the_auto_apply_limit_is_one_of_the_risk_levels(settings: Any) -> None:
    assert settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK in set(RiskLevel)
    assert {level: max_step(level) for level in RiskLevel} == {
        RiskLevel.NONE: 0.0,
        RiskLevel.LOW: 0.1,
        RiskLevel.MEDIUM: 0.3,
        RiskLevel.HIGH: 1.0,
    }


def test_a_step_config_proposal_documents_the_learnings_access_words() -> None:
    variant = next(
        v
        for v in PROPOSAL_VARIANTS
        if v["properties"]["path"]["pattern"].endswith(r"\.learnings_access$")
    )
    assert set(variant["properties"]["new_value"]["enum"]) == set(LearningsAccess)


# --- a read-write step needs an objective: one rule ---------------------------------------------


@pytest.mark.parametrize(
    ("access", "objective", "lacking"),
    [
        ("read-write", "", True),
        ("read-write", "  \n", True),
        ("read-write", "auth flows", False),
        ("read", "", False),
        ("none", "", False),
    ],
)
def test_only_a_read_write_step_without_an_objective_lacks_one(
    access: str, objective: str, lacking: bool
) -> None:
    assert lacks_objective(access, objective) is lacking


def _step_config(step_id: str, field: str, old: Any, new: Any) -> dict[str, Any]:
    return {
        "target": "step_config",
        "op": "update",
        "path": f"steps.{step_id}.{field}",
        "old_value": old,
        "new_value": new,
    }


def test_an_admin_may_not_make_a_step_read_write_without_an_objective(boss: Actor) -> None:
    response = boss.rest("put", "/api/steps/login/", {"learnings_access": "read-write"})

    assert response.status_code == 400
    assert "learning_objective" in response.json()["message"]


def test_a_proposal_may_not_make_a_step_read_write_without_an_objective(
    transport: Send, agent: Actor
) -> None:
    proposal = _step_config("login", "learnings_access", "read", "read-write")

    body = ok(transport(agent, review_req(proposal)))

    assert body["approved"] is False
    assert any("learning_objective" in reason for reason in body["reasons"]), body["reasons"]


def test_a_proposal_may_not_clear_the_objective_of_a_read_write_step(
    transport: Send, agent: Actor
) -> None:
    StepFactory.create(step_id="login")
    proposal = _step_config("login", "learning_objective", "x", "")

    body = ok(transport(agent, review_req(proposal)))

    assert body["approved"] is False
    assert any("learning_objective" in reason for reason in body["reasons"]), body["reasons"]


def test_a_proposal_may_set_the_objective_of_a_read_write_step(
    transport: Send, agent: Actor
) -> None:
    StepFactory.create(step_id="login")
    proposal = _step_config("login", "learning_objective", "x", "auth flows")

    body = ok(transport(agent, review_req(proposal)))

    assert body["approved"] is True, body["reasons"]


def test_a_run_of_a_read_write_step_without_an_objective_files_no_edit(
    agent: Actor, boss: Actor
) -> None:
    make_step(boss, "login", learnings_access="read")
    Step.objects.filter(step_id="login").update(learnings_access="read-write")

    response = report_run(agent, "login", "Log in", [skill_edit("# Skill\n")])

    assert response.status_code == 200
    assert response.json()["reason"] == "step login has no learning_objective"
