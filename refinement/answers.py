"""What refinement answers, each answer one pydantic model.

The services and selectors build these from the stored rows; a REST view returns
`answer.model_dump(mode="json")` and gives the same class to `extend_schema`, so the OpenAPI
document is the model's JSON schema; the learn/* handlers take their response fields from the
same objects. An apply's and a rollback's answers are the protocol's (`Applied`, `Rollback`),
which the envelopes of learn/refinement/apply and rollback carry as well.
"""

from __future__ import annotations

from typing import Any

from pydantic import RootModel

from learnportal_protocol.messages import Rollback
from learnportal_protocol.models import Answer
from refinement.models import Plan, Proposal, ProposalStatus, Review, Step, StoreValue
from refinement.vocabulary import LearningsAccess, PlanStatus, ReviewKind, RiskLevel

LATEST_REVIEWS = 3  # the reviews a proposal shows, newest first


class Routing(Answer):
    weights: dict[str, float]
    updated: float


class SkillEntry(Answer):
    path: str
    version: int
    updated: float
    updated_by: str
    size: int

    @classmethod
    def of(cls, row: StoreValue) -> SkillEntry:
        return cls(
            path=row.path,
            version=row.version,
            updated=row.updated,
            updated_by=row.updated_by,
            size=len(str(row.value).encode()),
        )


class SkillList(RootModel[list[SkillEntry]]):
    pass


class SkillFile(Answer):
    path: str
    version: int
    text: str


class StepState(Answer):
    """A step's settings and metadata; a step never configured has the defaults."""

    step_id: str
    learnings_access: LearningsAccess
    learning_objective: str
    lock_learnings: bool
    review_notes: str
    last_description_hash: str
    description_hash_runs: int
    runs_total: int
    updated: float

    @classmethod
    def of(cls, step: Step | None, step_id: str) -> StepState:
        step = step or Step(step_id=step_id)
        return cls(
            step_id=step_id,
            learnings_access=LearningsAccess(step.learnings_access),
            learning_objective=step.learning_objective,
            lock_learnings=step.lock_learnings,
            review_notes=step.review_notes,
            last_description_hash=step.last_description_hash,
            description_hash_runs=step.description_hash_runs,
            runs_total=step.runs_total,
            updated=step.updated,
        )


class StepsState(Answer):
    global_skill_objective: str
    steps: list[StepState]


class ProposalWire(Answer):
    """A stored proposal as the wire carries it: the five keys of docs/contract.md and the host's
    own."""

    target: str
    op: str
    path: str
    old_value: Any
    new_value: Any
    proposal_id: str
    plan_id: str
    reason: str
    step_id: str

    @classmethod
    def of(cls, record: Proposal) -> ProposalWire:
        return cls(**_wire_fields(record))


def _wire_fields(record: Proposal) -> dict[str, Any]:
    return {
        "target": record.target,
        "op": record.op,
        "path": record.path,
        "old_value": record.old_value,
        "new_value": record.new_value,
        "proposal_id": record.proposal_id,
        "plan_id": record.plan.plan_id if record.plan else "",
        "reason": record.reason,
        "step_id": record.step_id,
    }


class ProposalReview(Answer):
    kind: ReviewKind
    approved: bool
    risk_level: RiskLevel
    reasons: list[str]
    confidence_adjusted: bool  # the evidence behind it is thin, so its confidence was lowered
    reviewer: str
    note: str
    ts: float
    current: bool  # for the proposal's content now, not an earlier one

    @classmethod
    def of(cls, review: Review, record: Proposal) -> ProposalReview:
        return cls(
            kind=ReviewKind(review.kind),
            approved=review.approved,
            risk_level=RiskLevel(review.risk_level),
            reasons=review.reasons,
            confidence_adjusted=review.confidence_adjusted,
            reviewer=review.reviewer,
            note=review.note,
            ts=review.ts,
            current=review.proposal_hash == record.content_hash,
        )


class ProposalState(ProposalWire):
    """A proposal for reviewers: where it stands, and its latest reviews."""

    status: ProposalStatus
    risk_level: RiskLevel
    requested_by: str
    reviews: list[ProposalReview]

    @classmethod
    def of(cls, record: Proposal) -> ProposalState:
        reviews = record.reviews.order_by("-ts", "-id")[:LATEST_REVIEWS]
        return cls(
            **_wire_fields(record),
            status=ProposalStatus(record.status),
            risk_level=RiskLevel(record.risk_level),
            requested_by=record.requested_by,
            reviews=[ProposalReview.of(review, record) for review in reviews],
        )


class PlanState(Answer):
    plan_id: str
    origin: str
    status: PlanStatus
    component_name: str
    scope: str
    requested_by: str
    summary: str
    created: float
    proposals: list[ProposalState]

    @classmethod
    def of(cls, plan: Plan) -> PlanState:
        return cls(
            plan_id=plan.plan_id,
            origin=plan.origin,
            status=PlanStatus(plan.status),
            component_name=plan.component_name,
            scope=plan.scope,
            requested_by=plan.requested_by,
            summary=plan.summary,
            created=plan.created,
            proposals=[ProposalState.of(p) for p in plan.proposals.order_by("id")],
        )


class PlanList(RootModel[list[PlanState]]):
    pass


class RunOutcome(Answer):
    """A reported run: the step after it, and the plan its edits were filed as, or why none."""

    step: StepState
    plan_id: str = ""
    proposals: list[ProposalState] = []
    reason: str = ""


class Decision(Answer):
    """A person's approval or rejection of a proposal, and where the proposal stands after it."""

    proposal_id: str
    status: ProposalStatus
    risk_level: RiskLevel
    reasons: list[str]

    @classmethod
    def of(cls, review: Review) -> Decision:
        record = review.proposal
        return cls(
            proposal_id=record.proposal_id,
            status=ProposalStatus(record.status),
            risk_level=RiskLevel(review.risk_level),
            reasons=review.reasons,
        )


class RolledBack(Rollback):
    """What a rollback did, and the refinement that undoes it (applied, or queued)."""

    rollback_refinement_id: str = ""
