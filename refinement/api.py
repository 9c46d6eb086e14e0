"""REST beside learn/*: routing weights, the learning store, steps, runs and reviewer decisions.

Views parse, call one service and serialize; the rules live in `refinement.learning_store` and
`refinement.services`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal, TypeVar

from drf_spectacular.utils import OpenApiParameter, extend_schema
from pydantic import BaseModel, Field, RootModel
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from learnportal.accounts.roles import Action
from learnportal.protocol.errors import invalid
from learnportal.protocol.models import StrictModel, Text
from learnportal.protocol.wire import parse_body as parse_json_body
from refinement import learning_store, store
from refinement.history import history_entries
from refinement.proposals import ProposalInput
from refinement.services import (
    proposal_apply_stored,
    proposal_approve,
    proposal_reject,
    refinement_rollback,
)

Body = TypeVar("Body", bound=BaseModel)
MAX_LIMIT = 200


def parse_body(model: type[Body], request: Request) -> Body:
    return parse_json_body(model, request.body or b"{}")


def limit_param(request: Request, default: int) -> int:
    raw = request.query_params.get("limit", "")
    if not raw:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        raise invalid(f"limit is a whole number from 1 to {MAX_LIMIT}.")
    return int(raw)


# Bodies and answers, for validation and the schema ----------------------------------------


class Routing(StrictModel):
    weights: dict[str, float]
    updated: float


class SkillEntry(StrictModel):
    path: str
    version: int
    updated: float
    updated_by: str
    size: int


class SkillFile(StrictModel):
    path: str
    version: int
    text: str


class StepState(StrictModel):
    step_id: str
    learnings_access: Literal["read", "read-write", "none"]
    learning_objective: str
    lock_learnings: bool
    review_notes: str
    last_description_hash: str
    description_hash_runs: int
    runs_total: int
    updated: float


class StepsState(StrictModel):
    global_skill_objective: str
    steps: list[StepState]


class WorkflowUpdate(StrictModel):
    global_skill_objective: Text = Field(max_length=20_000)


class StepUpdate(StrictModel):
    """The settings an admin may send; metadata is accepted only to be refused by name."""

    learnings_access: str = ""
    learning_objective: Text = Field(default="", max_length=20_000)
    lock_learnings: bool = False
    review_notes: Text = Field(default="", max_length=20_000)
    step_id: Any = None
    last_description_hash: Any = None
    description_hash_runs: Any = None
    runs_total: Any = None
    updated: Any = None


class RunReport(StrictModel):
    description: Text = Field(max_length=100_000)
    edits: list[ProposalInput] = Field(default_factory=list, max_length=100)


class ProposalReview(StrictModel):
    kind: str
    approved: bool
    risk_level: str
    reasons: list[str]
    reviewer: str
    note: str
    ts: float
    current: bool


class ProposalState(StrictModel):
    target: str
    op: str
    path: str
    old_value: Any
    new_value: Any
    proposal_id: str
    plan_id: str
    reason: str
    step_id: str
    status: str
    risk_level: str
    requested_by: str
    reviews: list[ProposalReview]


class RunOutcome(StrictModel):
    step: StepState
    plan_id: str
    proposals: list[ProposalState]
    reason: str


class PlanState(StrictModel):
    plan_id: str
    origin: str
    status: str
    component_name: str
    scope: str
    requested_by: str
    summary: str
    created: float
    proposals: list[ProposalState]


class SkillList(RootModel[list[SkillEntry]]):
    pass


class PlanList(RootModel[list[PlanState]]):
    pass


class Approve(StrictModel):
    note: Text = Field(default="", max_length=5_000)


class Reject(StrictModel):
    reason: Text = Field(max_length=5_000)


class Decision(StrictModel):
    proposal_id: str
    status: str
    risk_level: str
    reasons: list[str]


class Applied(StrictModel):
    refinement_id: str
    applied_edits: int
    failed_edits: int
    rollback_available: bool
    error: str


class RolledBack(StrictModel):
    refinement_id: str
    rolled_back: bool
    error: str
    rollback_refinement_id: str


class History(StrictModel):
    entries: list[dict[str, Any]]


STEP_PARAM = OpenApiParameter(
    "step", str, description="the step reading; a step with learnings_access 'none' is refused"
)


# Views ------------------------------------------------------------------------------------


class RoutingView(APIView):
    @extend_schema(summary="Current routing weights", responses=Routing)
    def get(self, request: Request) -> Response:
        return Response({"weights": store.routing_weights(), "updated": store.routing_updated()})


class SkillsView(APIView):
    @extend_schema(
        summary="List the learnings files",
        operation_id="skills_list",
        parameters=[STEP_PARAM],
        responses=SkillList,
    )
    def get(self, request: Request) -> Response:
        step_id = request.query_params.get("step", "")
        return Response(learning_store.skill_list(principal=request.user, step_id=step_id))


class SkillView(APIView):
    @extend_schema(summary="Read one learnings file", parameters=[STEP_PARAM], responses=SkillFile)
    def get(self, request: Request, path: str) -> Response:
        step_id = request.query_params.get("step", "")
        return Response(
            learning_store.skill_get(principal=request.user, path=path, step_id=step_id)
        )


class StepsView(APIView):
    parser_classes: list = []

    @extend_schema(
        summary="The workflow's global skill objective and its steps",
        operation_id="steps_list",
        responses=StepsState,
    )
    def get(self, request: Request) -> Response:
        return Response(learning_store.steps_list())

    @extend_schema(
        summary="Set the global skill objective (admin)",
        operation_id="workflow_update",
        request=WorkflowUpdate,
        responses=StepsState,
    )
    def put(self, request: Request) -> Response:
        request.user.require(Action.MANAGE_STEPS)
        body = parse_body(WorkflowUpdate, request)
        return Response(
            learning_store.workflow_update(
                principal=request.user, global_skill_objective=body.global_skill_objective
            )
        )


class StepView(APIView):
    parser_classes: list = []

    @extend_schema(summary="A step's learning settings and metadata", responses=StepState)
    def get(self, request: Request, step_id: str) -> Response:
        return Response(learning_store.step_get(step_id=step_id))

    @extend_schema(
        summary="Change a step's learning settings (admin)", request=StepUpdate, responses=StepState
    )
    def put(self, request: Request, step_id: str) -> Response:
        request.user.require(Action.MANAGE_STEPS)
        body = parse_body(StepUpdate, request)
        return Response(
            learning_store.step_update(
                principal=request.user, step_id=step_id, changes=body.model_dump(exclude_unset=True)
            )
        )


class StepRunsView(APIView):
    parser_classes: list = []

    @extend_schema(
        summary="Report one successful run of a step",
        request=RunReport,
        responses={200: RunOutcome, 201: RunOutcome},
    )
    def post(self, request: Request, step_id: str) -> Response:
        request.user.require(Action.REPORT_RUNS)
        body = parse_body(RunReport, request)
        outcome = learning_store.run_report(
            principal=request.user, step_id=step_id, description=body.description, edits=body.edits
        )
        return Response(asdict(outcome), status=201 if outcome.plan_id else 200)


class PlansView(APIView):
    @extend_schema(
        summary="Plans awaiting decisions, newest first",
        operation_id="plans_list",
        parameters=[OpenApiParameter("status", str), OpenApiParameter("limit", int)],
        responses=PlanList,
    )
    def get(self, request: Request) -> Response:
        return Response(
            learning_store.plan_list(
                principal=request.user,
                status=request.query_params.get("status", ""),
                limit=limit_param(request, 50),
            )
        )


class PlanView(APIView):
    @extend_schema(summary="One plan and its proposals", responses=PlanState)
    def get(self, request: Request, plan_id: str) -> Response:
        return Response(learning_store.plan_get(principal=request.user, plan_id=plan_id))


def _decision(review: Any) -> dict[str, Any]:
    record = review.proposal
    return {
        "proposal_id": record.proposal_id,
        "status": record.status,
        "risk_level": review.risk_level,
        "reasons": review.reasons,
    }


class ApproveView(APIView):
    parser_classes: list = []

    @extend_schema(summary="Approve a proposal", request=Approve, responses=Decision)
    def post(self, request: Request, proposal_id: str) -> Response:
        request.user.require(Action.DECIDE)
        body = parse_body(Approve, request)
        review = proposal_approve(principal=request.user, proposal_id=proposal_id, note=body.note)
        return Response(_decision(review))


class RejectView(APIView):
    parser_classes: list = []

    @extend_schema(summary="Reject a proposal, saying why", request=Reject, responses=Decision)
    def post(self, request: Request, proposal_id: str) -> Response:
        request.user.require(Action.DECIDE)
        body = parse_body(Reject, request)
        review = proposal_reject(
            principal=request.user, proposal_id=proposal_id, reason=body.reason
        )
        return Response(_decision(review))


class ApplyView(APIView):
    parser_classes: list = []

    @extend_schema(summary="Apply a stored proposal", request=None, responses=Applied)
    def post(self, request: Request, proposal_id: str) -> Response:
        outcome = proposal_apply_stored(principal=request.user, proposal_id=proposal_id)
        return Response(asdict(outcome))


class RollbackView(APIView):
    parser_classes: list = []

    @extend_schema(summary="Roll back an applied refinement", request=None, responses=RolledBack)
    def post(self, request: Request, refinement_id: str) -> Response:
        outcome = refinement_rollback(principal=request.user, refinement_id=refinement_id)
        return Response(asdict(outcome))


class HistoryView(APIView):
    @extend_schema(
        summary="The refinement history, newest first",
        parameters=[OpenApiParameter("limit", int)],
        responses=History,
    )
    def get(self, request: Request) -> Response:
        request.user.require(Action.HISTORY)
        return Response({"entries": history_entries(limit=limit_param(request, 500))})
