"""`/api/projects/<slug>/guidelines/`: a project's guidelines, each version of them, a new
version from its managers, and a person's acknowledgement of one (core.projects.guidelines).

Any principal in the project reads them, as it reads the project's settings; a project it may
not enter answers `not_found`, exactly as one that does not exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import Field
from rest_framework.response import Response

from core.projects import models
from core.projects.answers import AcknowledgedAnswer, GuidelinesAnswer, GuidelinesVersionAnswer
from core.projects.guidelines import (
    MAX_VERSION,
    guidelines_acknowledge,
    guidelines_at,
    guidelines_current,
    guidelines_due,
    guidelines_history,
    guidelines_last_read,
    guidelines_replace,
)
from learnportal.people.projects_api import MANAGERS_ONLY, NO_PROJECT, OneProjectView
from learnportal_protocol.models import NO_NUL, StrictModel
from learnportal_protocol.wire import parse_body

if TYPE_CHECKING:
    from rest_framework.request import Request

QuestionKey = Annotated[str, Field(pattern=models.QUESTION_KEY_PATTERN)]
QuestionText = Annotated[str, Field(max_length=models.QUESTION_GUIDELINES_LENGTH, pattern=NO_NUL)]


class GuidelinesRequest(StrictModel):
    guidelines: str = Field(
        default="", max_length=models.GUIDELINES_LENGTH, pattern=NO_NUL, description="markdown"
    )
    questions: dict[QuestionKey, QuestionText] = Field(
        default_factory=dict,
        max_length=models.MAX_QUESTION_GUIDELINES,
        description="a rubric question's key to its markdown; an empty text: none",
        json_schema_extra={"additionalProperties": False},  # keys only of the pattern's
    )


class AcknowledgeRequest(StrictModel):
    version: int = Field(ge=1, le=MAX_VERSION, description="the version you have read")


class GuidelinesView(OneProjectView):
    def _answer(self) -> Response:
        current = guidelines_current(self.project.pk)
        answer = GuidelinesAnswer.current(
            current,
            ack_required=self.project.guidelines_ack_required,
            acknowledged=guidelines_last_read(self.member),
            due=guidelines_due(self.member),
            versions=guidelines_history(self.project.pk),
        )
        return Response(answer.model_dump(mode="json"))

    @extend_schema(
        operation_id="projects_guidelines_retrieve",
        summary="The project's guidelines now, and its newest versions",
        responses={200: GuidelinesAnswer, 404: NO_PROJECT},
    )
    def get(self, request: Request, slug: str) -> Response:
        return self._answer()

    @extend_schema(
        operation_id="projects_guidelines_update",
        summary="Save the project's guidelines (its managers, site admins)",
        description="A new version when a text changed; the current one otherwise.",
        request={"application/json": GuidelinesRequest},
        responses={
            200: GuidelinesAnswer,
            400: OpenApiResponse(description="a bad text or question key, naming it"),
            403: MANAGERS_ONLY,
            404: NO_PROJECT,
        },
    )
    def put(self, request: Request, slug: str) -> Response:
        body = parse_body(GuidelinesRequest, request.body or b"{}")
        guidelines_replace(
            member=self.member, project=self.project, text=body.guidelines, questions=body.questions
        )
        return self._answer()


class GuidelinesVersionView(OneProjectView):
    @extend_schema(
        operation_id="projects_guidelines_version_retrieve",
        summary="One version of the project's guidelines",
        responses={200: GuidelinesVersionAnswer, 404: NO_PROJECT},
    )
    def get(self, request: Request, slug: str, version: int) -> Response:
        found = guidelines_at(self.project.pk, version, none_yet=False)
        return Response(GuidelinesVersionAnswer.of(found).model_dump(mode="json"))


class GuidelinesAcknowledgeView(OneProjectView):
    @extend_schema(
        operation_id="projects_guidelines_acknowledge",
        summary="Say you have read a version of the project's guidelines",
        request={"application/json": AcknowledgeRequest},
        responses={
            200: AcknowledgedAnswer,
            400: OpenApiResponse(description="no version number"),
            403: OpenApiResponse(description="only people acknowledge guidelines"),
            404: OpenApiResponse(description="no such project, or no such version"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        body = parse_body(AcknowledgeRequest, request.body or b"{}")
        due = guidelines_acknowledge(
            principal=self.member, project=self.project, version=body.version
        )
        return Response(AcknowledgedAnswer(version=body.version, due=due).model_dump(mode="json"))
