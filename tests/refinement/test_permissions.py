"""refinement.permissions.may: who may approve, reject, apply or roll back what, now.

The services refuse with it and the plan page disables its buttons with it, so these rules
are the ones both obey."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.accounts.roles import Role
from learnportal_protocol.errors import ErrorCode, LearnError
from refinement.models import Proposal, Refinement, StoreValue
from refinement.paths import weight_path
from refinement.permissions import Verb, may
from refinement.proposals import parse_proposal
from refinement.review import assess
from refinement.services.apply import proposal_apply, proposal_apply_stored
from refinement.services.approval import proposal_approve, proposal_permissions, proposal_reject
from refinement.services.register import proposal_wire
from refinement.services.rollback import refinement_rollback, rollback_permission
from tests.factories import PrincipalFactory, ProposalFactory, StoreValueFactory
from tests.harness import default_pk

if TYPE_CHECKING:
    from pytest_django import Settings

    from core.accounts.principals import Principal

pytestmark = pytest.mark.django_db

REVIEWER = PrincipalFactory.build(role=Role.REVIEWER, name="rita")
OTHER = PrincipalFactory.build(role=Role.REVIEWER, name="otto")
ADMIN = PrincipalFactory.build(role=Role.ADMIN, name="ada")
ANNOTATOR = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")
AGENT = PrincipalFactory.build(role=Role.AGENT, name="bot")
OTHER_AGENT = PrincipalFactory.build(role=Role.AGENT, name="bot2")


def _filed(by: Principal, new: float = 0.55) -> Proposal:
    """`by`'s plan to move alpha's weight from 0.5 to `new`."""
    StoreValueFactory.create(component="alpha", value=0.5)
    return ProposalFactory.create(by=by, component="alpha", new_value=new)


def _may(principal: Principal, verb: Verb, record: Proposal) -> tuple[bool, str]:
    record.refresh_from_db()
    assessment = assess(parse_proposal(proposal_wire(record)), project=default_pk())
    answer = may(principal, verb, record, [assessment])
    return answer.allowed, answer.reason


def test_a_reviewer_may_approve_reject_and_apply_another_principals_plan() -> None:
    record = _filed(AGENT)
    for verb in (Verb.APPROVE, Verb.REJECT, Verb.APPLY):
        assert _may(REVIEWER, verb, record) == (True, "")


def test_an_annotator_may_do_none_of_it() -> None:
    record = _filed(AGENT)
    for verb in (Verb.APPROVE, Verb.REJECT, Verb.APPLY):
        allowed, reason = _may(ANNOTATOR, verb, record)
        assert not allowed and reason.startswith("The annotator role may not")


def test_nobody_approves_or_applies_their_own_plan_but_may_reject_it() -> None:
    record = _filed(REVIEWER)
    plan_id = record.plan.plan_id if record.plan else ""
    why = f"You requested {plan_id}; another reviewer must approve it."
    assert _may(REVIEWER, Verb.APPROVE, record) == (False, why)
    assert _may(REVIEWER, Verb.APPLY, record) == (False, why)
    assert _may(REVIEWER, Verb.REJECT, record) == (True, "")
    assert _may(OTHER, Verb.APPROVE, record) == (True, "")


def test_an_applied_proposal_is_decided_already() -> None:
    record = _filed(AGENT)
    proposal_apply_stored(principal=REVIEWER, proposal_id=record.proposal_id)
    for verb in (Verb.APPROVE, Verb.APPLY):
        assert _may(OTHER, verb, record) == (
            False,
            f"Proposal {record.proposal_id} is applied already.",
        )
    allowed, reason = _may(OTHER, Verb.REJECT, record)
    assert not allowed and reason.endswith("roll it back instead.")


def test_a_rejected_proposal_is_neither_approved_nor_applied_nor_rejected_again() -> None:
    record = _filed(AGENT)
    proposal_reject(principal=REVIEWER, proposal_id=record.proposal_id, reason="no")
    for verb in (Verb.APPROVE, Verb.APPLY, Verb.REJECT):
        allowed, reason = _may(OTHER, verb, record)
        assert not allowed and "rejected" in reason
    with pytest.raises(LearnError) as refused:
        proposal_approve(principal=OTHER, proposal_id=record.proposal_id)
    assert refused.value.code == ErrorCode.CONFLICT


def test_a_stale_proposal_says_what_it_expected_and_found() -> None:
    record = _filed(AGENT)
    StoreValue.objects.filter(path=record.path).update(value=0.9)
    allowed, reason = _may(REVIEWER, Verb.APPROVE, record)
    assert not allowed
    assert reason == f"The proposal is stale: {record.path}: expected 0.5, found 0.9."
    assert _may(REVIEWER, Verb.APPLY, record)[1] == reason
    assert _may(REVIEWER, Verb.REJECT, record) == (True, "")  # a stale one may be turned down


def test_a_risk_above_the_reviewers_limit_needs_an_admin(settings: Settings) -> None:
    settings.LEARNPORTAL_REVIEWER_MAX_RISK = "low"
    record = _filed(AGENT, new=0.75)  # a step of 0.25: medium
    allowed, reason = _may(REVIEWER, Verb.APPROVE, record)
    assert not allowed
    assert reason.startswith("Its risk is medium, above the 'low' a reviewer may approve")
    assert not _may(REVIEWER, Verb.APPLY, record)[0]
    assert _may(ADMIN, Verb.APPROVE, record) == (True, "")
    with pytest.raises(LearnError) as refused:
        proposal_apply_stored(principal=REVIEWER, proposal_id=record.proposal_id)
    assert refused.value.code == ErrorCode.FORBIDDEN


def test_a_machine_applies_within_the_rules_and_queues_above_them_not_refused() -> None:
    record = _filed(AGENT, new=0.75)
    assert _may(AGENT, Verb.APPLY, record) == (True, "")  # queued by the service, not refused
    assert not _may(AGENT, Verb.APPROVE, record)[0]


def test_the_page_and_the_service_give_the_same_answer() -> None:
    record = _filed(REVIEWER)
    (_, permissions) = proposal_permissions(principal=REVIEWER, records=[record])[
        record.proposal_id
    ]
    with pytest.raises(LearnError) as refused:
        proposal_approve(principal=REVIEWER, proposal_id=record.proposal_id)
    assert refused.value.message == permissions[Verb.APPROVE].reason
    assert refused.value.code == permissions[Verb.APPROVE].code


def _applied_refinement(record: Proposal) -> Refinement:
    proposal_apply_stored(principal=REVIEWER, proposal_id=record.proposal_id)
    return Refinement.objects.get(proposal=record)


def test_an_applied_refinement_may_be_rolled_back_once() -> None:
    refinement = _applied_refinement(_filed(AGENT))
    assert rollback_permission(principal=OTHER, refinement=refinement).allowed
    outcome = refinement_rollback(principal=OTHER, refinement_id=refinement.refinement_id)
    refinement.refresh_from_db()
    answer = rollback_permission(principal=OTHER, refinement=refinement)
    assert not answer.allowed and answer.code == ErrorCode.CONFLICT
    assert answer.reason == (
        f"{refinement.refinement_id} was rolled back already by {outcome.rollback_refinement_id}."
    )


def test_a_rollback_over_a_later_change_is_stale() -> None:
    refinement = _applied_refinement(_filed(AGENT))
    StoreValue.objects.filter(path=weight_path("alpha")).update(value=0.2)
    answer = rollback_permission(principal=REVIEWER, refinement=refinement)
    assert not answer.allowed and answer.code == ErrorCode.CONFLICT
    assert "roll back the later change first" in answer.reason


def test_an_agent_rolls_back_only_what_it_applied() -> None:
    record = _filed(AGENT)
    proposal_apply(principal=AGENT, raw=proposal_wire(record))
    refinement = Refinement.objects.get(proposal=record)
    assert rollback_permission(principal=AGENT, refinement=refinement).allowed
    answer = rollback_permission(principal=OTHER_AGENT, refinement=refinement)
    assert answer.reason == "An agent may roll back only what it applied itself."
    assert not rollback_permission(principal=ANNOTATOR, refinement=refinement).allowed
