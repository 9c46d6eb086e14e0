"""`/api/projects/<slug>/rubric/`: every member reads the rubric their project rates on, its
managers make the next version, and a question that has answers is never changed out from
under them (docs/contract.md, "Rubric")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.projects.services import project_add
from feedback.models import RubricVersion
from feedback.rubrics.defaults import default_rubric
from tests.builders import turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from core.projects.models import Project

pytestmark = pytest.mark.django_db

URL = "/api/projects/alpha/rubric/"
GRADE: dict[str, Any] = {
    "kind": "categorical",
    "key": "grade",
    "label": "Grade",
    "options": ["poor", "fair", "good"],
    "ordered": True,
}
NOTE: dict[str, Any] = {"kind": "text", "key": "note", "label": "Notes"}
SOLVED: dict[str, Any] = {"kind": "boolean", "key": "solved", "label": "Solved"}


@pytest.fixture
def alpha(db: None) -> Project:
    return project_add(slug="alpha", name="Alpha")


@pytest.fixture
def lead(alpha: Project) -> Actor:
    return human_actor("lead", "manager", project="alpha")


@pytest.fixture
def aria(alpha: Project) -> Actor:
    return human_actor("aria", "annotator", project="alpha")


def put(actor: Actor, *questions: dict[str, Any]) -> Any:
    return actor.rest("put", URL, {"questions": list(questions)})


def rate_grade(alpha_agent: Actor, rater: Actor, grade: str) -> None:
    body = {"turns": [{"correlation_id": "t-1", "rated_turn": turn()}]}
    alpha_agent.rest("post", "/api/turns/", body)
    rated = rater.rest("post", "/api/ratings/", {"turn": "t-1", "answers": {"grade": grade}})
    assert rated.status_code == 201, rated.content


def test_a_project_that_wrote_none_rates_on_the_default_rubric_version_1(aria: Actor) -> None:
    response = aria.rest("get", URL)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["version"] == 1
    assert [q["key"] for q in body["questions"]] == [
        "correctness",
        "helpfulness",
        "safety",
        "tone",
        "plan_quality",
    ]
    assert body["questions"] == default_rubric().model_dump(mode="json")["questions"]
    assert {(q["kind"], q["min"], q["max"]) for q in body["questions"]} == {("numeric", -1, 1)}


def test_each_put_makes_the_next_version_which_every_member_reads(lead: Actor, aria: Actor) -> None:
    first = put(lead, GRADE)
    assert first.status_code == 200, first.content
    assert first.json()["version"] == 2
    second = put(lead, GRADE, NOTE)
    assert second.json()["version"] == 3
    read = aria.rest("get", URL).json()
    assert read["version"] == 3
    assert [q["key"] for q in read["questions"]] == ["grade", "note"]
    assert read["questions"][0]["options"] == ["poor", "fair", "good"]


@pytest.mark.parametrize("role", ["annotator", "reviewer"])
def test_only_managers_write_a_rubric(alpha: Project, role: str) -> None:
    member = human_actor(f"a-{role}", role, project="alpha")
    assert put(member, GRADE).status_code == 403
    assert put(token_actor("bot", "agent", project="alpha"), GRADE).status_code == 403
    assert not RubricVersion.objects.exists()


def test_a_site_admin_writes_any_projects_rubric(alpha: Project, boss: Actor) -> None:
    assert put(boss, GRADE).status_code == 200


def test_another_projects_rubric_is_not_found(alpha: Project, ann: Actor) -> None:
    assert ann.rest("get", URL).status_code == 404
    assert put(ann, GRADE).status_code == 404


@pytest.mark.parametrize(
    ("question", "loc"),
    [
        ({"kind": "slider", "key": "x", "label": "X"}, ["questions", 0, "kind"]),
        (
            {"kind": "numeric", "key": "x", "label": "X", "min": 5, "max": 1},
            ["questions", 0, "max"],
        ),
        ({**GRADE, "options": []}, ["questions", 0, "options"]),
        ({**GRADE, "colour": "red"}, ["questions", 0, "colour"]),
    ],
)
def test_a_bad_question_is_refused_naming_its_field_and_nothing_is_stored(
    lead: Actor, question: dict[str, Any], loc: list[Any]
) -> None:
    response = put(lead, question)
    assert response.status_code == 400, response.content
    assert loc in [d["loc"] for d in response.json()["details"]]
    assert not RubricVersion.objects.exists()


def test_a_body_that_is_not_a_rubric_is_refused(lead: Actor) -> None:
    for body in (b"[1]", b'{"questions": []}', b'{"questions": 3}', b"{"):
        response = lead.client.put(URL, data=body, content_type="application/json")
        assert response.status_code == 400, (body, response.content)
    assert not RubricVersion.objects.exists()


@pytest.mark.parametrize(
    "questions",
    [
        [NOTE],
        [NOTE, {"kind": "spans", "key": "claims", "label": "Claims", "options": ["wrong"]}],
        [{**GRADE, "ordered": False}, NOTE],
        [{**GRADE, "retired": True}, NOTE],
    ],
    ids=["text", "text-and-spans", "unordered", "scored-but-retired"],
)
def test_a_rubric_with_no_question_that_scores_is_refused(
    lead: Actor, questions: list[dict[str, Any]]
) -> None:
    response = put(lead, *questions)
    assert response.status_code == 400, response.content
    assert [d["loc"] for d in response.json()["details"]] == [["questions"]]
    assert "training data" in response.json()["message"]
    assert not RubricVersion.objects.exists()


def test_an_answered_question_may_not_change_kind_nor_disappear(lead: Actor, aria: Actor) -> None:
    put(lead, GRADE, NOTE)
    rate_grade(token_actor("alpha-agent", "agent", project="alpha"), aria, "good")
    changed = put(lead, {"kind": "text", "key": "grade", "label": "Grade"}, NOTE)
    assert changed.status_code == 409, changed.content
    assert changed.json()["details"][0]["loc"][:2] == ["questions", "grade"]
    gone = put(lead, NOTE)
    assert gone.status_code == 409
    dropped_option = put(lead, {**GRADE, "options": ["poor", "fair"]}, NOTE)
    assert dropped_option.status_code == 409
    assert aria.rest("get", URL).json()["version"] == 2


def test_an_answered_question_may_be_retired_and_an_unanswered_one_removed(
    lead: Actor, aria: Actor
) -> None:
    put(lead, GRADE, NOTE)
    rate_grade(token_actor("alpha-agent", "agent", project="alpha"), aria, "good")
    retired = put(lead, {**GRADE, "retired": True}, {**NOTE, "key": "remark"}, SOLVED)
    assert retired.status_code == 200, retired.content
    assert retired.json()["version"] == 3
    refused = aria.rest(
        "post", "/api/ratings/", {"turn": "t-1", "answers": {"grade": "good", "remark": "x"}}
    )
    assert refused.status_code == 400
    assert [d["loc"] for d in refused.json()["details"]] == [["answers", "grade"]]


def test_the_default_dimensions_have_answers_once_people_rated_them(
    aria: Actor, lead: Actor
) -> None:
    alpha_agent = token_actor("alpha-agent", "agent", project="alpha")
    alpha_agent.rest(
        "post", "/api/turns/", {"turns": [{"correlation_id": "t-1", "rated_turn": turn()}]}
    )
    rated = aria.rest("post", "/api/ratings/", {"turn": "t-1", "answers": {"safety": 1}})
    assert rated.status_code == 201, rated.content
    assert put(lead, GRADE).status_code == 409
    kept = [
        {**q, "retired": q["key"] == "safety"} for q in aria.rest("get", URL).json()["questions"]
    ]
    assert put(lead, *kept).status_code == 200


def test_a_stored_hotkey_the_page_now_takes_is_left_out_and_the_rubric_still_reads(
    alpha: Project, aria: Actor
) -> None:
    RubricVersion.objects.create(
        project=alpha,
        version=2,
        questions='[{"kind": "boolean", "key": "good", "label": "Good", "hotkeys": ["y", "g"]}]',
        by="lead",
        created=0.0,
    )
    response = aria.rest("get", URL)
    assert response.status_code == 200, response.content
    assert response.json()["questions"][0]["hotkeys"] == ["y"]
