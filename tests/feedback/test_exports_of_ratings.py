"""The exports of ratings on a rubric: `rewards` holds every answer (a sample for each scored one,
and all of the rating's answers beside), and a rubric's preference question labels the formats
that take one line a rating (docs/contract.md, "Teams: projects and rubrics", "Exports")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.projects.services import project_add
from feedback.models import Rating, RubricVersion
from tests.builders import feedback, feedback_req, turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from core.projects.models import Project

pytestmark = pytest.mark.django_db

RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5, "step": 1},
    {"kind": "categorical", "key": "verdict", "label": "Verdict",
     "options": ["wrong", "partly", "right"], "ordered": True},
    {"kind": "boolean", "key": "solved", "label": "Solved"},
    {"kind": "text", "key": "why", "label": "Why"},
    {"kind": "spans", "key": "errors", "label": "Errors", "options": ["factual"]},
]  # fmt: skip
RUBRIC_URL = "/api/projects/alpha/rubric/"


@pytest.fixture
def alpha(db: None) -> Project:
    return project_add(slug="alpha", name="Alpha")


@pytest.fixture
def lead(alpha: Project) -> Actor:
    return human_actor("lead", "manager", project="alpha")


@pytest.fixture
def aria(alpha: Project) -> Actor:
    return human_actor("aria", "annotator", project="alpha")


@pytest.fixture
def rene(alpha: Project) -> Actor:
    return human_actor("rene", "reviewer", project="alpha")


@pytest.fixture
def alpha_agent(alpha: Project) -> Actor:
    return token_actor("alpha-agent", "agent", project="alpha")


def rubric_put(lead: Actor, questions: list[dict[str, Any]], preference: str = "") -> Any:
    body: dict[str, Any] = {"questions": questions}
    if preference:
        body["preference"] = preference
    return lead.rest("put", RUBRIC_URL, body)


def queued(agent: Actor, name: str) -> None:
    body = {"turns": [{"correlation_id": name, "rated_turn": turn()}]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def rated(actor: Actor, name: str, answers: dict[str, Any], **extra: Any) -> str:
    sent = actor.rest("post", "/api/ratings/", {"turn": name, "answers": answers, **extra})
    assert sent.status_code == 201, sent.content
    rating_id: str = sent.json()["rating_id"]
    return rating_id


def test_rewards_has_a_sample_for_every_scored_answer_and_every_answer_beside(
    lead: Actor, aria: Actor, rene: Actor, alpha_agent: Actor
) -> None:
    assert rubric_put(lead, RUBRIC).status_code == 200
    queued(alpha_agent, "t-1")
    answers = {
        "quality": 5,
        "verdict": "partly",
        "solved": False,
        "why": "close",
        "errors": [{"start": 0, "end": 4, "label": "factual"}],
    }
    rating_id = rated(aria, "t-1", answers)
    lines = rene.exported("rewards")
    stored = Rating.objects.get(rating_id=rating_id).answers
    assert {line["question"]: line["score"] for line in lines} == {
        "quality": 1.0,
        "verdict": 0.0,
        "solved": -1.0,
    }
    for line in lines:
        assert line["answers"] == stored
        assert (line["rating_id"], line["rubric_version"]) == (rating_id, 2)
        assert (line["prompt"], line["response"]) == (turn()["prompt"], turn()["response"])
        assert line["source"] == "human"


def test_rewards_of_a_default_rubric_rating_is_one_sample_a_dimension(
    aria: Actor, rene: Actor, alpha_agent: Actor
) -> None:
    queued(alpha_agent, "t-1")
    rated(aria, "t-1", {"correctness": -0.5, "helpfulness": 0.75})
    lines = rene.exported("rewards")
    assert sorted((line["question"], line["dimension"], line["score"]) for line in lines) == [
        ("correctness", "correctness", -0.5),
        ("helpfulness", "helpfulness", 0.75),
    ]
    assert all(line["rubric_version"] == 1 for line in lines)


def test_rewards_and_the_answers_export_agree_on_every_rating(
    lead: Actor, aria: Actor, rene: Actor, alpha_agent: Actor
) -> None:
    assert rubric_put(lead, RUBRIC).status_code == 200
    for index, name in enumerate(("t-1", "t-2", "t-3")):
        queued(alpha_agent, name)
        answers = {"quality": 1 + index, "solved": index % 2 == 0, "why": f"reason {index}"}
        rated(aria, name, answers, correction="Better." if index == 1 else "")
    by_rating = {line["rating_id"]: line for line in rene.exported("answers")}
    rewards = rene.exported("rewards")
    assert {line["rating_id"] for line in rewards} == set(by_rating)
    for line in rewards:
        assert line["answers"] == by_rating[line["rating_id"]]["answers"]
        assert line["rubric_version"] == by_rating[line["rating_id"]]["rubric_version"]


def test_feedback_named_like_a_rating_is_not_read_as_one(
    lead: Actor, aria: Actor, rene: Actor, alpha_agent: Actor
) -> None:
    assert rubric_put(lead, RUBRIC).status_code == 200
    queued(alpha_agent, "t-1")
    rating_id = rated(aria, "t-1", {"quality": 2, "verdict": "right"})
    forged = feedback(
        feedback_id=f"{rating_id}.verdict", correlation_id="t-1", source="self", score=0.5
    )
    assert alpha_agent.learn(feedback_req(forged)).status_code == 200
    lines = rene.exported("rewards")
    from_rating = [line for line in lines if "rating_id" in line]
    assert sorted(line["question"] for line in from_rating) == ["quality", "verdict"]
    assert all(line["source"] == "human" for line in from_rating)
    (agents,) = [line for line in lines if "rating_id" not in line]
    assert (agents["source"], agents["score"]) == ("self", 0.5)


def test_kto_labels_a_rating_by_its_preference_question(
    lead: Actor, aria: Actor, rene: Actor, alpha_agent: Actor
) -> None:
    assert rubric_put(lead, RUBRIC).status_code == 200
    queued(alpha_agent, "t-1")
    rated(aria, "t-1", {"quality": 5, "solved": False})
    assert [line["label"] for line in rene.exported("kto")] == [True]  # the rating's score
    assert rubric_put(lead, RUBRIC, preference="solved").status_code == 200
    assert [line["label"] for line in rene.exported("kto")] == [False]
    assert rubric_put(lead, RUBRIC, preference="verdict").status_code == 200
    # Not answered: the rating's own score speaks for it.
    assert [line["label"] for line in rene.exported("kto")] == [True]


def test_kto_takes_one_line_a_rating_once_a_dimension_is_the_preference(
    lead: Actor, aria: Actor, rene: Actor, alpha_agent: Actor
) -> None:
    queued(alpha_agent, "t-1")
    rated(aria, "t-1", {"correctness": -0.5, "helpfulness": 0.75})
    assert sorted(line["label"] for line in rene.exported("kto")) == [False, True]
    questions = lead.rest("get", RUBRIC_URL).json()["questions"]
    assert rubric_put(lead, questions, preference="helpfulness").status_code == 200
    assert [line["label"] for line in rene.exported("kto")] == [True]


def test_a_correction_is_one_pair_a_rating_whatever_the_preference_question(
    lead: Actor, aria: Actor, rene: Actor, alpha_agent: Actor
) -> None:
    assert rubric_put(lead, RUBRIC, preference="solved").status_code == 200
    queued(alpha_agent, "t-1")
    rated(aria, "t-1", {"quality": 1, "solved": True}, correction="The fixed answer.")
    (pair,) = rene.exported("trl")
    assert (pair["chosen"], pair["rejected"]) == ("The fixed answer.", turn()["response"])
    assert [line["label"] for line in rene.exported("kto")] == [False, True]


@pytest.mark.parametrize("preference", ["why", "errors", "nosuch"])
def test_the_preference_question_is_one_with_a_score(lead: Actor, preference: str) -> None:
    assert rubric_put(lead, RUBRIC).status_code == 200
    refused = rubric_put(lead, RUBRIC, preference=preference)
    assert refused.status_code == 400, refused.content
    assert [d["loc"] for d in refused.json()["details"]] == [["preference"]]
    assert RubricVersion.objects.count() == 1


def test_the_rubric_names_its_preference_question(lead: Actor, aria: Actor) -> None:
    assert aria.rest("get", RUBRIC_URL).json()["preference"] == ""
    assert rubric_put(lead, RUBRIC, preference="verdict").status_code == 200
    assert aria.rest("get", RUBRIC_URL).json()["preference"] == "verdict"
