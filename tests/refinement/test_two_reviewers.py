"""LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS: a high-risk proposal applies only once two distinct people
approved it; one approves, another approves or applies (refinement.permissions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.accounts.roles import Role
from learnportal_protocol.errors import ErrorCode, LearnError
from refinement.models import Proposal
from refinement.permissions import Verb, may
from refinement.proposals import parse_proposal
from refinement.review import assess
from refinement.services.apply import proposal_apply, proposal_apply_stored
from refinement.services.approval import proposal_approve
from refinement.services.register import proposal_wire
from refinement.store import routing_weights
from tests.factories import PrincipalFactory, ProposalFactory, StoreValueFactory
from tests.harness import default_pk

if TYPE_CHECKING:
    from pytest_django import Settings

    from core.accounts.principals import Principal
    from refinement.models import Proposal

pytestmark = pytest.mark.django_db

RITA = PrincipalFactory.build(role=Role.REVIEWER, name="rita")
OTTO = PrincipalFactory.build(role=Role.REVIEWER, name="otto")
AGENT = PrincipalFactory.build(role=Role.AGENT, name="bot")


@pytest.fixture
def two_reviewers(settings: Settings) -> None:
    settings.LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS = True


def _filed(new: float) -> Proposal:
    """An agent's plan to move alpha's weight from 0.5 (by more than 0.3: high risk)."""
    StoreValueFactory.create(component="alpha", value=0.5)
    return ProposalFactory.create(by=AGENT, component="alpha", new_value=new, summary="a big step")


def _may(principal: Principal, verb: Verb, record: Proposal) -> tuple[bool, str]:
    record.refresh_from_db()
    answer = may(
        principal,
        verb,
        record,
        [assess(parse_proposal(proposal_wire(record)), project=default_pk())],
    )
    return answer.allowed, answer.reason


def test_without_the_rule_one_reviewer_applies_a_high_risk_proposal() -> None:
    record = _filed(0.9)
    assert record.risk_level == "high"
    proposal_apply_stored(principal=RITA, proposal_id=record.proposal_id)
    assert routing_weights(default_pk())["alpha"] == pytest.approx(0.9)


@pytest.mark.usefixtures("two_reviewers")
def test_a_high_risk_proposal_waits_for_a_second_distinct_reviewer() -> None:
    record = _filed(0.9)
    allowed, why = _may(RITA, Verb.APPLY, record)
    assert not allowed and why.startswith(f"Approve {record.proposal_id} first: high risk needs")
    proposal_approve(principal=RITA, proposal_id=record.proposal_id)

    for verb in (Verb.APPLY, Verb.APPROVE):  # the same person twice is not two reviewers
        allowed, why = _may(RITA, verb, record)
        assert not allowed
        assert why == (
            f"You approved {record.proposal_id}; high risk needs two reviewers "
            "(LEARNPORTAL_HIGH_RISK_TWO_REVIEWERS): another reviewer must approve or apply it."
        )
    with pytest.raises(LearnError) as refused:
        proposal_apply_stored(principal=RITA, proposal_id=record.proposal_id)
    assert refused.value.code == ErrorCode.FORBIDDEN
    assert routing_weights(default_pk())["alpha"] == pytest.approx(0.5)

    assert _may(OTTO, Verb.APPLY, record) == (True, "")
    proposal_apply_stored(principal=OTTO, proposal_id=record.proposal_id)
    assert routing_weights(default_pk())["alpha"] == pytest.approx(0.9)


@pytest.mark.usefixtures("two_reviewers")
def test_the_rule_leaves_lower_risks_to_one_reviewer() -> None:
    record = _filed(0.55)
    assert record.risk_level == "low"
    assert _may(RITA, Verb.APPLY, record) == (True, "")


@pytest.mark.usefixtures("two_reviewers")
def test_a_machines_queued_high_risk_apply_needs_both_approvals() -> None:
    record = _filed(0.9)
    raw = proposal_wire(record)
    assert proposal_apply(principal=AGENT, raw=raw).error  # queued for a person
    proposal_approve(principal=RITA, proposal_id=record.proposal_id)
    assert proposal_apply(principal=AGENT, raw=raw).error  # still one short
    assert routing_weights(default_pk())["alpha"] == pytest.approx(0.5)
    proposal_approve(principal=OTTO, proposal_id=record.proposal_id)
    assert proposal_apply(principal=AGENT, raw=raw).applied_edits == 1
    assert routing_weights(default_pk())["alpha"] == pytest.approx(0.9)
