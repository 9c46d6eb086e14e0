"""Each REST answer is one pydantic model: the OpenAPI document's schema of an operation's
success is that model's JSON schema, so the two cannot drift (schemathesis, in
test_openapi_truth.py, checks that every answer is what the schema says)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from rest_framework.test import APIClient

from core.projects.answers import (
    AcknowledgedAnswer,
    GuidelinesAnswer,
    GuidelinesVersionAnswer,
    InvitationAnswer,
    MemberAnswer,
    MemberList,
    ProjectAnswer,
    ProjectList,
)
from feedback.answers import (
    Agreement,
    FeedbackPage,
    QueueLease,
    QueueUndone,
    RatingCreated,
    RubricAnswer,
    TurnDetail,
    TurnPage,
    TurnsCreated,
)
from feedback.assignments.answers import AssignmentList, StoredAssignment
from feedback.comparisons.answers import ComparisonsCreated, JudgmentCreated, Leaderboard
from feedback.gold.answers import (
    GoldPage,
    GoldPeople,
    PersonGold,
    StoredGold,
    StoredGoldComparison,
)
from feedback.insight.answers import AnnotatorsAnswer
from feedback.intake.answers import RuleList, StoredRule
from feedback.judges.answers import JudgesAnswer, MarkedJudgeAnswer, MarkedJudges
from feedback.reviews.answers import ReviewCreated, ReviewLeased, ReviewPage
from learnportal.api.openapi import ResponseJsonSchema
from learnportal.api.schema import LearnResponse
from learnportal_protocol.messages import (
    Applied,
    Capability,
    History,
    LearnRefinementApplyResponse,
    LearnRefinementHistoryResponse,
    LearnRefinementRollbackResponse,
    Rollback,
)
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
from webhooks.answers import (
    DeliveryAnswer,
    DeliveryList,
    EndpointAnswer,
    EndpointCreated,
    EndpointList,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

REF = "#/components/schemas/{model}"

# Every operation's success, and the model its view answers with.
ANSWERS: dict[tuple[str, str, str], type[BaseModel]] = {
    ("get", "/api/learn/", "200"): Capability,
    ("post", "/api/learn/", "200"): LearnResponse,
    ("get", "/api/turns/", "200"): TurnPage,
    ("get", "/api/turns/{id}/", "200"): TurnDetail,
    ("post", "/api/turns/", "201"): TurnsCreated,
    ("get", "/api/feedback/", "200"): FeedbackPage,
    ("get", "/api/agreement/", "200"): Agreement,
    ("get", "/api/routing/", "200"): Routing,
    ("get", "/api/skills/", "200"): SkillList,
    ("get", "/api/skills/{path}", "200"): SkillFile,
    ("get", "/api/steps/", "200"): StepsState,
    ("put", "/api/steps/", "200"): StepsState,
    ("get", "/api/steps/{step_id}/", "200"): StepState,
    ("put", "/api/steps/{step_id}/", "200"): StepState,
    ("post", "/api/steps/{step_id}/runs/", "200"): RunOutcome,
    ("post", "/api/steps/{step_id}/runs/", "201"): RunOutcome,
    ("get", "/api/plans/", "200"): PlanList,
    ("get", "/api/plans/{plan_id}/", "200"): PlanState,
    ("post", "/api/proposals/{proposal_id}/approve/", "200"): Decision,
    ("post", "/api/proposals/{proposal_id}/reject/", "200"): Decision,
    ("post", "/api/proposals/{proposal_id}/apply/", "200"): Applied,
    ("post", "/api/refinements/{refinement_id}/rollback/", "200"): RolledBack,
    ("get", "/api/history/", "200"): History,
    ("post", "/api/queue/next/", "200"): QueueLease,
    ("post", "/api/queue/undo/", "200"): QueueUndone,
    ("post", "/api/ratings/", "201"): RatingCreated,
    ("post", "/api/comparisons/", "201"): ComparisonsCreated,
    ("post", "/api/comparisons/{comparison}/judgments/", "201"): JudgmentCreated,
    ("get", "/api/leaderboard/", "200"): Leaderboard,
    ("get", "/api/reviews/", "200"): ReviewPage,
    ("post", "/api/reviews/", "201"): ReviewCreated,
    ("post", "/api/reviews/next/", "200"): ReviewLeased,
    ("put", "/api/turns/{id}/gold/", "200"): StoredGold,
    ("put", "/api/comparisons/{comparison}/gold/", "200"): StoredGoldComparison,
    ("get", "/api/gold/", "200"): GoldPage,
    ("get", "/api/intake-rules/", "200"): RuleList,
    ("get", "/api/queue-assignments/", "200"): AssignmentList,
    ("post", "/api/queue-assignments/", "201"): StoredAssignment,
    ("put", "/api/queue-assignments/{id}/", "200"): StoredAssignment,
    ("get", "/api/judges/", "200"): JudgesAnswer,
    ("get", "/api/judges/marked/", "200"): MarkedJudges,
    ("post", "/api/judges/marked/", "200"): MarkedJudgeAnswer,
    ("get", "/api/annotators/", "200"): AnnotatorsAnswer,
    ("post", "/api/intake-rules/", "201"): StoredRule,
    ("put", "/api/intake-rules/{id}/", "200"): StoredRule,
    ("get", "/api/gold/people/", "200"): GoldPeople,
    ("post", "/api/gold/people/{username}/resume/", "200"): PersonGold,
    ("get", "/api/projects/", "200"): ProjectList,
    ("post", "/api/projects/", "201"): ProjectAnswer,
    ("get", "/api/projects/{slug}/", "200"): ProjectAnswer,
    ("patch", "/api/projects/{slug}/", "200"): ProjectAnswer,
    ("get", "/api/projects/{slug}/members/", "200"): MemberList,
    ("post", "/api/projects/{slug}/members/", "200"): MemberAnswer,
    ("post", "/api/projects/{slug}/invitations/", "201"): InvitationAnswer,
    ("get", "/api/projects/{slug}/rubric/", "200"): RubricAnswer,
    ("put", "/api/projects/{slug}/rubric/", "200"): RubricAnswer,
    ("get", "/api/projects/{slug}/guidelines/", "200"): GuidelinesAnswer,
    ("put", "/api/projects/{slug}/guidelines/", "200"): GuidelinesAnswer,
    ("get", "/api/projects/{slug}/guidelines/{version}/", "200"): GuidelinesVersionAnswer,
    ("post", "/api/projects/{slug}/guidelines/acknowledge/", "200"): AcknowledgedAnswer,
    ("get", "/api/webhooks/", "200"): EndpointList,
    ("post", "/api/webhooks/", "201"): EndpointCreated,
    ("get", "/api/webhooks/{endpoint_id}/", "200"): EndpointAnswer,
    ("get", "/api/webhooks/{endpoint_id}/deliveries/", "200"): DeliveryList,
    (
        "post",
        "/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver/",
        "202",
    ): DeliveryAnswer,
}
# Successes that answer no body.
NO_CONTENT = {
    ("post", "/api/queue/next/", "204"),
    ("post", "/api/queue/release/", "204"),
    ("post", "/api/queue/skip/", "204"),
    ("post", "/api/reviews/next/", "204"),
    ("post", "/api/reviews/release/", "204"),
    ("delete", "/api/turns/{id}/gold/", "204"),
    ("delete", "/api/comparisons/{comparison}/gold/", "204"),
    ("delete", "/api/intake-rules/{id}/", "204"),
    ("delete", "/api/judges/marked/{username}/", "204"),
    ("delete", "/api/queue-assignments/{id}/", "204"),
    ("delete", "/api/webhooks/{endpoint_id}/", "204"),
    ("delete", "/api/projects/{slug}/members/{username}/", "204"),
}


# Operations whose success is a stream of JSON lines, not one JSON answer.
STREAMS = {("get", "/api/exports/{kind}.jsonl", "200")}


@pytest.fixture(scope="module")
def document(django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/", {"format": "json"}).json()


def successes(document: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {
        (method, path, status)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
        for status in operation["responses"]
        if status.startswith("2")
    }


def test_every_success_of_every_operation_has_its_answer_model(document: dict[str, Any]) -> None:
    assert successes(document) == set(ANSWERS) | NO_CONTENT | STREAMS


@pytest.mark.parametrize("operation", sorted(NO_CONTENT), ids=" ".join)
def test_a_success_without_a_body_says_so(
    document: dict[str, Any], operation: tuple[str, str, str]
) -> None:
    method, path, status = operation
    assert "content" not in document["paths"][path][method]["responses"][status]


@pytest.mark.parametrize("operation", sorted(STREAMS))
def test_a_stream_says_it_answers_json_lines(
    document: dict[str, Any], operation: tuple[str, str, str]
) -> None:
    method, path, status = operation
    answer = document["paths"][path][method]["responses"][status]
    assert list(answer["content"]) == ["application/jsonl"]


@pytest.mark.parametrize(
    ("operation", "model"), ANSWERS.items(), ids=[" ".join(op) for op in ANSWERS]
)
def test_the_schema_of_an_answer_is_its_models_json_schema(
    document: dict[str, Any], operation: tuple[str, str, str], model: type[BaseModel]
) -> None:
    method, path, status = operation
    components = document["components"]["schemas"]
    expected = model.model_json_schema(
        ref_template=REF, mode="serialization", schema_generator=ResponseJsonSchema
    )
    defs = expected.pop("$defs", {})

    answer = document["paths"][path][method]["responses"][status]
    assert answer["content"]["application/json"]["schema"] == {
        "$ref": REF.format(model=model.__name__)
    }
    assert components[model.__name__] == expected
    assert {name: components.get(name) for name in defs} == defs


@pytest.mark.parametrize(
    ("envelope", "answer"),
    [
        (LearnRefinementApplyResponse, Applied),
        (LearnRefinementRollbackResponse, Rollback),
        (LearnRefinementHistoryResponse, History),
    ],
)
def test_a_learn_envelope_carries_the_answer_rest_gives(
    envelope: type[BaseModel], answer: type[BaseModel]
) -> None:
    assert issubclass(envelope, answer)
    fields = set(envelope.model_fields) - {"type", "id", "version", "ts", "req_id"}
    assert fields == set(answer.model_fields)


def test_a_rest_rollback_says_what_the_learn_rollback_says_and_its_undo() -> None:
    assert issubclass(RolledBack, Rollback)
    assert set(RolledBack.model_fields) - set(Rollback.model_fields) == {"rollback_refinement_id"}
