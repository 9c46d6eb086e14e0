"""`/api/projects/`: the projects a principal may see, each one's settings, members and rubric.

A project the caller may not enter answers `not_found`, exactly as one that does not exist
(core.projects.selection); its managers and site admins change it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.response import Response
from rest_framework.views import APIView

from core.accounts.authentication import principal_of
from core.accounts.roles import Action
from core.projects import models, services
from core.projects.answers import (
    InvitationAnswer,
    MemberAnswer,
    MemberList,
    ProjectAnswer,
    ProjectList,
)
from core.projects.invitations import invitation_make
from core.projects.selection import principal_in, visible_projects
from feedback.answers import RubricAnswer
from feedback.services.rubrics import rubric_current, rubric_replace
from learnportal.people.welcome import welcome_url
from learnportal_protocol.models import NO_CONTROL, NO_NUL, USERNAME_LENGTH, StrictModel
from learnportal_protocol.wire import loads_strict, parse_body, refuse_wide_integers

if TYPE_CHECKING:
    from rest_framework.request import Request

    from core.accounts.principals import Principal

NO_PROJECT = OpenApiResponse(description="no such project, or not one of yours")
MANAGERS_ONLY = OpenApiResponse(description="only the project's managers and site admins")


class ProjectRequest(StrictModel):
    slug: str = Field(pattern=models.SLUG_PATTERN, max_length=50)
    name: str = Field(min_length=1, max_length=models.NAME_LENGTH, pattern=NO_CONTROL)


class ProjectChanges(StrictModel):
    name: str = Field(default="", min_length=1, max_length=models.NAME_LENGTH, pattern=NO_CONTROL)
    ratings_per_turn: int | None = Field(default=None, ge=1, le=models.MAX_RATINGS_PER_TURN)
    lease_seconds: int | None = Field(default=None, ge=30, le=models.MAX_LEASE_SECONDS)
    blind: bool = True
    priority_negative: int = Field(
        default=models.DEFAULT_PRIORITY_NEGATIVE, ge=0, le=models.MAX_PRIORITY_WEIGHT
    )
    priority_unsure: int = Field(
        default=models.DEFAULT_PRIORITY_UNSURE, ge=0, le=models.MAX_PRIORITY_WEIGHT
    )
    guidelines: str = Field(default="", max_length=models.GUIDELINES_LENGTH, pattern=NO_NUL)
    guidelines_ack_required: bool = False
    comparisons_as_evidence: bool = False
    compare_turns: bool = False
    gold_rate: float = Field(default=0, ge=0, le=models.MAX_GOLD_RATE)
    gold_min_items: int = Field(
        default=models.DEFAULT_GOLD_MIN_ITEMS, ge=1, le=models.MAX_GOLD_MIN_ITEMS
    )
    gold_pause_below: float = Field(default=0, ge=0, le=1)
    judges_weighed: bool = False


class MemberRequest(StrictModel):
    username: str = Field(min_length=1, max_length=USERNAME_LENGTH)
    role: Literal["annotator", "reviewer", "manager"]


class InvitationRequest(MemberRequest):
    # A new account's name: what Django's username validator lets through (letters, digits
    # and @.+-_), so that the schema says what is refused.
    username: str = Field(min_length=1, max_length=USERNAME_LENGTH, pattern=r"^[\w.@+-]+$")


class ProjectsView(APIView):
    parser_classes = []

    @extend_schema(
        operation_id="projects_list",
        summary="The projects this principal may see",
        responses={200: ProjectList},
    )
    def get(self, request: Request) -> Response:
        answer = ProjectList.of(visible_projects(principal_of(request)))
        return Response(answer.model_dump(mode="json"))

    @extend_schema(
        operation_id="projects_create",
        summary="Make a project (site admins)",
        request={"application/json": ProjectRequest},
        responses={
            201: ProjectAnswer,
            400: OpenApiResponse(description="a bad slug or name"),
            403: OpenApiResponse(description="only site admins make projects"),
            409: OpenApiResponse(description="a project has this slug already"),
        },
    )
    def post(self, request: Request) -> Response:
        principal_of(request).require(Action.MANAGE_PROJECTS)
        body = parse_body(ProjectRequest, request.body or b"{}")
        project = services.project_add(slug=body.slug, name=body.name)
        return Response(ProjectAnswer.of(project).model_dump(mode="json"), status=201)


class OneProjectView(APIView):
    """A view under /api/projects/<slug>/: `self.project` and the caller acting in it."""

    parser_classes = []
    project: models.Project
    member: Principal

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self.member = principal_in(principal_of(request), kwargs["slug"])
        self.project = services.project_named(kwargs["slug"])


class ProjectView(OneProjectView):
    @extend_schema(
        operation_id="projects_retrieve",
        summary="One project's settings",
        responses={200: ProjectAnswer, 404: NO_PROJECT},
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(ProjectAnswer.of(self.project).model_dump(mode="json"))

    @extend_schema(
        operation_id="projects_partial_update",
        summary="Change a project's settings (its managers, site admins)",
        request={"application/json": ProjectChanges},
        responses={
            200: ProjectAnswer,
            400: OpenApiResponse(description="a bad setting"),
            403: MANAGERS_ONLY,
            404: NO_PROJECT,
        },
    )
    def patch(self, request: Request, slug: str) -> Response:
        self.member.require(Action.MANAGE_PROJECT)
        body = parse_body(ProjectChanges, request.body or b"{}")
        changes = {field: getattr(body, field) for field in body.model_fields_set}
        project = services.project_update(project=self.project, changes=changes, member=self.member)
        return Response(ProjectAnswer.of(project).model_dump(mode="json"))


class MembersView(OneProjectView):
    @extend_schema(
        operation_id="projects_members_list",
        summary="A project's members with their roles there",
        responses={200: MemberList, 403: MANAGERS_ONLY, 404: NO_PROJECT},
    )
    def get(self, request: Request, slug: str) -> Response:
        self.member.require(Action.MANAGE_PROJECT)
        return Response(MemberList.of(services.members(self.project)).model_dump(mode="json"))

    @extend_schema(
        operation_id="projects_members_create",
        summary="Make a person a member, or change their role in the project",
        request={"application/json": MemberRequest},
        responses={
            200: MemberAnswer,
            400: OpenApiResponse(description="a bad role, or a site admin"),
            403: MANAGERS_ONLY,
            404: OpenApiResponse(description="no such project, or no such person"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        self.member.require(Action.MANAGE_PROJECT)
        body = parse_body(MemberRequest, request.body or b"{}")
        person = services.person_named(body.username)
        role = services.member_change(
            actor=self.member, project=self.project, person=person, role=body.role
        )
        return Response(MemberAnswer.of(person, role).model_dump(mode="json"))


class InvitationsView(OneProjectView):
    @extend_schema(
        operation_id="projects_invitations_create",
        summary="Invite a person with no account yet: their account, their role, their link",
        request={"application/json": InvitationRequest},
        responses={
            201: InvitationAnswer,
            400: OpenApiResponse(description="a bad username or role"),
            403: MANAGERS_ONLY,
            404: NO_PROJECT,
            409: OpenApiResponse(description="that person has an account already"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        body = parse_body(InvitationRequest, request.body or b"{}")
        invitation = invitation_make(
            actor=self.member, project=self.project, username=body.username, role=body.role
        )
        answer = InvitationAnswer.of_invitation(invitation, welcome_url(request, invitation))
        response = Response(answer.model_dump(mode="json"), status=201)
        response["Cache-Control"] = "no-store"
        return response


class MemberView(OneProjectView):
    @extend_schema(
        operation_id="projects_members_destroy",
        summary="End a person's membership of the project",
        responses={204: None, 403: MANAGERS_ONLY, 404: NO_PROJECT},
    )
    def delete(self, request: Request, slug: str, username: str) -> Response:
        self.member.require(Action.MANAGE_PROJECT)
        person = services.person_named(username)
        services.member_end(actor=self.member, project=self.project, person=person)
        return Response(status=204)


class RubricView(OneProjectView):
    @extend_schema(
        operation_id="projects_rubric_retrieve",
        summary="The rubric the project's turns are rated on",
        responses={200: RubricAnswer, 404: NO_PROJECT},
    )
    def get(self, request: Request, slug: str) -> Response:
        answer = RubricAnswer.of(rubric_current(self.project.pk))
        return Response(answer.model_dump(mode="json"))

    @extend_schema(
        operation_id="projects_rubric_update",
        summary="Make the project's next rubric version",
        description='A question that has answers may be retired (`"retired": true`) but not '
        "removed, nor change its kind, or lose a range, step or option its answers use.",
        request={
            "application/json": {
                "type": "object",
                "properties": {"questions": {}, "preference": {"type": "string"}},
                "required": ["questions"],
                "additionalProperties": False,
            }
        },
        responses={
            200: RubricAnswer,
            400: OpenApiResponse(description="a bad question, naming its field"),
            403: MANAGERS_ONLY,
            404: NO_PROJECT,
            409: OpenApiResponse(description="a change to a question that has answers"),
        },
    )
    def put(self, request: Request, slug: str) -> Response:
        data = loads_strict(request.body or b"{}")
        refuse_wide_integers(data)
        stored = rubric_replace(member=self.member, project=self.project, data=data)
        return Response(RubricAnswer.of(stored).model_dump(mode="json"))
