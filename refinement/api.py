"""REST beside learn/*: routing weights, the learning store, steps, runs and reviewer decisions.

Views parse, call one service and serialize; the rules live in `refinement.learning_store` and
`refinement.services`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.inputs import (
    QueryInt,
    QueryModel,
    QueryText,
    parse_query,
    query_parameters,
)
from core.projects.selection import project_pk
from learnportal_protocol.messages import HISTORY_CURSOR_PATTERN, Applied, History
from learnportal_protocol.models import StrictModel, Text
from learnportal_protocol.wire import parse_body as parse_json_body
from refinement import learning_store
from refinement.answers import (
    Decision,
    PlanList,
    PlanState,
    RolledBack,
    Routing,
    RunOutcome,
    SkillFile,
    SkillList,
    StepsState,
    StepState,
)
from refinement.decisions import Approve, Reject
from refinement.history import HISTORY_LIMIT, history_read
from refinement.paths import STEP
from refinement.proposals import ProposalInput
from refinement.selectors import routing_read
from refinement.services.apply import proposal_apply_stored
from refinement.services.approval import proposal_approve, proposal_reject
from refinement.services.rollback import refinement_rollback
from refinement.vocabulary import LearningsAccess, PlanStatus

if TYPE_CHECKING:
    from rest_framework.request import Request

Body = TypeVar("Body", bound=BaseModel)
STEP_ID = f"^{STEP}$"


def parse_body(model: type[Body], request: Request) -> Body:
    return parse_json_body(model, request.body or b"{}")


# Bodies, for validation and the schema (the answers are refinement.answers') ---------------


class WorkflowUpdate(StrictModel):
    global_skill_objective: Text = Field(max_length=20_000)


class StepUpdate(StrictModel):
    """The settings an admin may send; metadata is accepted only to be refused by name.

    (The metadata fields are left out of the schema: a client may not send them.)
    """

    learnings_access: LearningsAccess = LearningsAccess.READ
    learning_objective: Text = Field(default="", max_length=20_000)
    lock_learnings: bool = False
    review_notes: Text = Field(default="", max_length=20_000)
    step_id: SkipJsonSchema[Any] = None
    last_description_hash: SkipJsonSchema[Any] = None
    description_hash_runs: SkipJsonSchema[Any] = None
    runs_total: SkipJsonSchema[Any] = None
    updated: SkipJsonSchema[Any] = None


class RunReport(StrictModel):
    description: Text = Field(max_length=100_000)
    edits: list[ProposalInput] = Field(
        default_factory=list,
        max_length=100,
        description="skill_file edits only",
        json_schema_extra=lambda schema: schema.update(
            items={"allOf": [schema["items"], {"properties": {"target": {"const": "skill_file"}}}]}
        ),
    )


class SkillsQuery(QueryModel):
    step: str = Field(
        default="",
        pattern=f"^(?:{STEP})?$",
        description="the step reading; a step with learnings_access 'none' is refused",
    )


class PlansQuery(QueryModel):
    status: QueryText = Field(
        default="", description=f"only plans in this status ({', '.join(PlanStatus)})"
    )
    limit: QueryInt = Field(default=50, ge=1, le=200)


class ProposalQuery(QueryModel):
    """Whose proposal, where several principals use its id (ids are chosen by each)."""

    requested_by: QueryText = Field(
        default="",
        max_length=160,
        description="the requester's key (token:NAME or user:NAME); "
        "needed only where several principals use this proposal id",
    )


class HistoryQuery(QueryModel):
    limit: QueryInt = Field(default=HISTORY_LIMIT, ge=1, le=HISTORY_LIMIT)
    cursor: str = Field(
        default="", pattern=HISTORY_CURSOR_PATTERN, description="opaque: a reply's next_cursor"
    )


STEP_ID_PARAM = OpenApiParameter(
    "step_id", str, OpenApiParameter.PATH, required=True, pattern=STEP_ID, description="a step id"
)
# The URL's path converter matches no newline: such a path reaches no view.
SKILL_PATH_PARAM = OpenApiParameter(
    "path",
    str,
    OpenApiParameter.PATH,
    required=True,
    pattern=r"^[^\n]+$",
    description="a learnings file, e.g. _global/SKILL.md (learnings/ may be left out)",
)
NOT_A_STEP_ID = OpenApiResponse(description="not a step id")
ADMINS_ONLY = OpenApiResponse(description="only admins change the steps")
DECIDERS_ONLY = OpenApiResponse(description="only reviewers and admins decide")
NO_PROPOSAL = OpenApiResponse(description="no proposal with this id (and requester)")
SHARED_PROPOSAL_ID = OpenApiResponse(
    description="several principals use this proposal id and requested_by names none of them"
)
STEP_READS_NOTHING = OpenApiResponse(description="the step has learnings_access 'none'")
JSON = "application/json"


# Views ------------------------------------------------------------------------------------


class RoutingView(APIView):
    @extend_schema(
        summary="Current routing weights",
        description=(
            "Each component's traffic share relative to the most favoured one (1.0); a component "
            "never weighted counts as 0.5. Choose among your candidates with probability "
            "proportional to their weights and report that probability as `action.action_prob`."
        ),
        responses=Routing,
    )
    def get(self, request: Request) -> Response:
        project = project_pk(principal_of(request).project)
        return Response(routing_read(project).model_dump(mode="json"))


class SkillsView(APIView):
    @extend_schema(
        summary="List the learnings files",
        operation_id="skills_list",
        parameters=query_parameters(SkillsQuery),
        responses={200: SkillList, 403: STEP_READS_NOTHING},
    )
    def get(self, request: Request) -> Response:
        query = parse_query(SkillsQuery, request.query_params)
        answer = learning_store.skill_list(principal=principal_of(request), step_id=query.step)
        return Response(answer.model_dump(mode="json"))


class SkillView(APIView):
    @extend_schema(
        summary="Read one learnings file",
        parameters=[SKILL_PATH_PARAM, *query_parameters(SkillsQuery)],
        responses={
            200: SkillFile,
            403: STEP_READS_NOTHING,
            404: OpenApiResponse(description="no learnings file at this path"),
        },
    )
    def get(self, request: Request, path: str) -> Response:
        query = parse_query(SkillsQuery, request.query_params)
        answer = learning_store.skill_get(
            principal=principal_of(request), path=path, step_id=query.step
        )
        return Response(answer.model_dump(mode="json"))


class StepsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="The workflow's global skill objective and its steps",
        operation_id="steps_list",
        responses=StepsState,
    )
    def get(self, request: Request) -> Response:
        project = project_pk(principal_of(request).project)
        return Response(learning_store.steps_list(project=project).model_dump(mode="json"))

    @extend_schema(
        summary="Set the global skill objective (admin)",
        operation_id="workflow_update",
        request={JSON: WorkflowUpdate},
        responses={200: StepsState, 403: ADMINS_ONLY},
    )
    def put(self, request: Request) -> Response:
        principal = principal_of(request)
        body = parse_body(WorkflowUpdate, request)
        answer = learning_store.workflow_update(
            principal=principal, global_skill_objective=body.global_skill_objective
        )
        return Response(answer.model_dump(mode="json"))


class StepView(APIView):
    parser_classes = []

    @extend_schema(
        summary="A step's learning settings and metadata",
        parameters=[STEP_ID_PARAM],
        responses={200: StepState, 400: NOT_A_STEP_ID},
    )
    def get(self, request: Request, step_id: str) -> Response:
        project = project_pk(principal_of(request).project)
        step = learning_store.step_get(project=project, step_id=step_id)
        return Response(step.model_dump(mode="json"))

    @extend_schema(
        summary="Change a step's learning settings (admin)",
        parameters=[STEP_ID_PARAM],
        request={JSON: StepUpdate},
        responses={200: StepState, 403: ADMINS_ONLY},
    )
    def put(self, request: Request, step_id: str) -> Response:
        principal = principal_of(request)
        body = parse_body(StepUpdate, request)
        answer = learning_store.step_update(
            principal=principal,
            step_id=step_id,
            changes=body.model_dump(mode="json", exclude_unset=True),
        )
        return Response(answer.model_dump(mode="json"))


class StepRunsView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Report one successful run of a step",
        parameters=[STEP_ID_PARAM],
        request={JSON: RunReport},
        responses={
            200: OpenApiResponse(RunOutcome, description="recorded; no edit taken (see reason)"),
            201: OpenApiResponse(RunOutcome, description="recorded; the edits filed as a plan"),
            403: OpenApiResponse(description="only agents, environments and admins report runs"),
        },
    )
    def post(self, request: Request, step_id: str) -> Response:
        principal = principal_of(request)
        body = parse_body(RunReport, request)
        outcome = learning_store.run_report(
            principal=principal, step_id=step_id, description=body.description, edits=body.edits
        )
        return Response(outcome.model_dump(mode="json"), status=201 if outcome.plan_id else 200)


class PlansView(APIView):
    @extend_schema(
        summary="Plans awaiting decisions, newest first",
        operation_id="plans_list",
        parameters=query_parameters(PlansQuery),
        responses={200: PlanList, 403: DECIDERS_ONLY},
    )
    def get(self, request: Request) -> Response:
        query = parse_query(PlansQuery, request.query_params)
        answer = learning_store.plan_list(
            principal=principal_of(request), status=query.status, limit=query.limit
        )
        return Response(answer.model_dump(mode="json"))


class PlanView(APIView):
    @extend_schema(
        summary="One plan and its proposals",
        responses={
            200: PlanState,
            403: DECIDERS_ONLY,
            404: OpenApiResponse(description="no plan with this id"),
        },
    )
    def get(self, request: Request, plan_id: str) -> Response:
        answer = learning_store.plan_get(principal=principal_of(request), plan_id=plan_id)
        return Response(answer.model_dump(mode="json"))


class ApproveView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Approve a proposal",
        parameters=query_parameters(ProposalQuery),
        request={JSON: Approve},
        responses={
            200: Decision,
            400: SHARED_PROPOSAL_ID,
            403: OpenApiResponse(
                description="only reviewers and admins decide, never on a plan they requested, "
                "nor into a locked step, nor above LEARNPORTAL_REVIEWER_MAX_RISK (reviewers)"
            ),
            404: NO_PROPOSAL,
            409: OpenApiResponse(
                description="applied, rolled back or rejected already, or a stale old_value"
            ),
        },
    )
    def post(self, request: Request, proposal_id: str) -> Response:
        principal = principal_of(request)
        body = parse_body(Approve, request)
        query = parse_query(ProposalQuery, request.query_params)
        review = proposal_approve(
            principal=principal,
            proposal_id=proposal_id,
            note=body.note,
            requested_by=query.requested_by,
        )
        return Response(Decision.of(review).model_dump(mode="json"))


class RejectView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Reject a proposal, saying why",
        parameters=query_parameters(ProposalQuery),
        request={JSON: Reject},
        responses={
            200: Decision,
            400: SHARED_PROPOSAL_ID,
            403: DECIDERS_ONLY,
            404: NO_PROPOSAL,
            409: OpenApiResponse(description="applied, rolled back or rejected already"),
        },
    )
    def post(self, request: Request, proposal_id: str) -> Response:
        principal = principal_of(request)
        body = parse_body(Reject, request)
        query = parse_query(ProposalQuery, request.query_params)
        review = proposal_reject(
            principal=principal,
            proposal_id=proposal_id,
            reason=body.reason,
            requested_by=query.requested_by,
        )
        return Response(Decision.of(review).model_dump(mode="json"))


class ApplyView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Apply a stored proposal",
        parameters=query_parameters(ProposalQuery),
        request=None,
        responses={
            200: Applied,
            400: SHARED_PROPOSAL_ID,
            403: OpenApiResponse(
                description="only reviewers and admins apply here, never a plan they requested, "
                "nor into a locked step, nor above LEARNPORTAL_REVIEWER_MAX_RISK (reviewers)"
            ),
            404: NO_PROPOSAL,
            409: OpenApiResponse(
                description="applied, rolled back or rejected already, or a stale old_value"
            ),
        },
    )
    def post(self, request: Request, proposal_id: str) -> Response:
        query = parse_query(ProposalQuery, request.query_params)
        outcome = proposal_apply_stored(
            principal=principal_of(request),
            proposal_id=proposal_id,
            requested_by=query.requested_by,
        )
        return Response(outcome.model_dump(mode="json"))


class RollbackView(APIView):
    parser_classes = []

    @extend_schema(
        summary="Roll back an applied refinement",
        request=None,
        responses={
            200: RolledBack,
            403: OpenApiResponse(description="an agent rolls back only what it applied"),
            404: OpenApiResponse(description="no refinement with this id"),
            409: OpenApiResponse(
                description="rolled back already, never applied, or changed since"
            ),
        },
    )
    def post(self, request: Request, refinement_id: str) -> Response:
        outcome = refinement_rollback(principal=principal_of(request), refinement_id=refinement_id)
        return Response(outcome.model_dump(mode="json"))


class HistoryView(APIView):
    @extend_schema(
        summary="The refinement history, newest first",
        parameters=query_parameters(HistoryQuery),
        responses={
            200: History,
            400: OpenApiResponse(description="a limit or cursor that is not one"),
            403: OpenApiResponse(description="annotators read no refinement history"),
        },
    )
    def get(self, request: Request) -> Response:
        query = parse_query(HistoryQuery, request.query_params)
        answer = history_read(
            principal=principal_of(request), limit=query.limit, cursor=query.cursor
        )
        return Response(answer.model_dump(mode="json"))
