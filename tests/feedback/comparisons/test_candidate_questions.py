"""The rubric's questions of candidates (issue 26, item 2): a project's rubric may ask its
judges something of each candidate of a comparison (`candidates: true`), answered with the
judgment, checked as a rating's answers are, kept by question and exported with each shown
candidate; such a question is asked of no turn."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.comparisons.models import Judgment
from tests.builders import turn
from tests.feedback.comparisons.test_comparisons_api import judge, lease, pair, submit
from tests.harness import Actor, human_actor, refused_at

pytestmark = pytest.mark.django_db

OVERALL = {"key": "overall", "kind": "numeric", "label": "Overall", "min": 1, "max": 5, "step": 1}
FACTUAL = {
    "key": "factual",
    "kind": "boolean",
    "label": "Factual?",
    "candidates": True,
    "required": True,
}
TONE = {
    "key": "tone",
    "kind": "categorical",
    "label": "Tone",
    "options": ["dry", "warm"],
    "candidates": True,
}


@pytest.fixture
def lead(db: None) -> Actor:
    return human_actor("lead", "manager")


def rubric_put(lead: Actor, *questions: dict[str, Any]) -> Any:
    return lead.rest("put", "/api/projects/default/rubric/", {"questions": list(questions)})


@pytest.fixture
def asked(lead: Actor) -> None:
    response = rubric_put(lead, OVERALL, FACTUAL, TONE)
    assert response.status_code in (200, 201), response.content


def leased_ids(actor: Actor) -> tuple[int, list[str]]:
    leased = lease(actor)
    assert leased is not None
    return leased["id"], [c["candidate_id"] for c in leased["candidates"]]


def test_each_candidates_answers_are_kept_by_question(
    agent: Actor, ann: Actor, asked: None
) -> None:
    submit(agent, pair("c-1"))
    comparison, (first, second) = leased_ids(ann)
    answers = {first: {"factual": True, "tone": "warm"}, second: {"factual": False}}
    response = judge(ann, comparison, preference=-1, answers=answers)
    assert response.status_code == 201, response.content
    stored = Judgment.objects.get()
    assert stored.answers == {"factual": {first: True, second: False}, "tone": {first: "warm"}}
    assert stored.rubric_version is not None


def test_a_required_question_of_candidates_wants_an_answer_for_each(
    agent: Actor, ann: Actor, asked: None
) -> None:
    submit(agent, pair("c-1"))
    comparison, (first, second) = leased_ids(ann)
    response = judge(ann, comparison, preference=0, answers={first: {"factual": True}})
    assert refused_at(response) == [["answers", second, "factual"]]
    assert not Judgment.objects.exists()


@pytest.mark.parametrize(
    ("answer", "field"),
    [
        ({"factual": "yes"}, "factual"),
        ({"factual": True, "tone": "loud"}, "tone"),
        ({"factual": True, "overall": 3}, "overall"),
        ({"factual": True, "nope": 1}, "nope"),
    ],
    ids=["a wrong type", "not an option", "a question of turns", "no such question"],
)
def test_a_bad_answer_is_refused_naming_its_candidate_and_question(
    agent: Actor, ann: Actor, asked: None, answer: dict[str, Any], field: str
) -> None:
    submit(agent, pair("c-1"))
    comparison, (first, second) = leased_ids(ann)
    answers = {first: answer, second: {"factual": True}}
    assert refused_at(judge(ann, comparison, preference=1, answers=answers)) == [
        ["answers", first, field]
    ]
    assert not Judgment.objects.exists()


def test_an_answer_for_what_is_no_candidate_is_refused(
    agent: Actor, ann: Actor, asked: None
) -> None:
    submit(agent, pair("c-1"))
    comparison, ids = leased_ids(ann)
    answers = {c: {"factual": True} for c in ids} | {"someone-else": {"factual": True}}
    assert refused_at(judge(ann, comparison, preference=1, answers=answers)) == [
        ["answers", "someone-else"]
    ]


def test_on_the_default_rubric_a_judgment_takes_no_answers(agent: Actor, ann: Actor) -> None:
    submit(agent, pair("c-1"))
    comparison, (first, _) = leased_ids(ann)
    response = judge(ann, comparison, preference=1, answers={first: {"correctness": 1}})
    assert refused_at(response) == [["answers", first, "correctness"]]
    assert judge(ann, comparison, preference=1).status_code == 201


def test_a_question_of_candidates_is_asked_of_no_turn(
    agent: Actor, ann: Actor, asked: None
) -> None:
    sent = agent.rest(
        "post", "/api/turns/", {"turns": [{"correlation_id": "t-1", "rated_turn": turn()}]}
    )
    assert sent.status_code in (200, 201)
    rating = {"turn": "t-1", "answers": {"overall": 4, "factual": True}}
    assert refused_at(ann.rest("post", "/api/ratings/", rating)) == [["answers", "factual"]]
    del rating["answers"]["factual"]  # type: ignore[attr-defined]
    assert ann.rest("post", "/api/ratings/", rating).status_code == 201


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ({**TONE, "step_kinds": ["tool"]}, "candidates"),
        (
            {
                "key": "marks",
                "kind": "spans",
                "label": "Marks",
                "options": ["x"],
                "candidates": True,
            },
            "candidates",
        ),
    ],
    ids=["and of steps", "spans"],
)
def test_a_question_of_candidates_is_of_no_step_and_marks_no_spans(
    lead: Actor, question: dict[str, Any], field: str
) -> None:
    assert refused_at(rubric_put(lead, OVERALL, question)) == [["questions", 1, field]]


def test_a_rubric_of_candidates_alone_has_nothing_to_score_a_turn(lead: Actor) -> None:
    assert refused_at(rubric_put(lead, FACTUAL, TONE)) == [["questions"]]


def test_an_answered_question_of_candidates_stays_one(
    agent: Actor, ann: Actor, lead: Actor, asked: None
) -> None:
    submit(agent, pair("c-1"))
    comparison, ids = leased_ids(ann)
    answers = {c: {"factual": True} for c in ids}
    assert judge(ann, comparison, preference=1, answers=answers).status_code == 201
    moved = rubric_put(lead, OVERALL, {**FACTUAL, "candidates": False}, TONE)
    assert moved.status_code == 409
    assert refused_at(moved, 409) == [["questions", "factual"]]
    assert rubric_put(lead, OVERALL, {**FACTUAL, "retired": True}, TONE).status_code in (200, 201)


def test_the_comparisons_export_carries_each_shown_candidates_answers(
    agent: Actor, ann: Actor, asked: None, boss: Actor
) -> None:
    submit(agent, pair("c-1"))
    comparison, (first, second) = leased_ids(ann)
    answers = {first: {"factual": True, "tone": "dry"}, second: {"factual": False}}
    assert judge(ann, comparison, preference=1, answers=answers).status_code == 201
    (line,) = boss.exported("comparisons")
    shown = line["shown"]
    assert [(c["candidate_id"], c["answers"]) for c in shown] == [
        (first, {"factual": True, "tone": "dry"}),
        (second, {"factual": False}),
    ]


def test_many_ids_of_no_candidate_are_refused_in_one_bounded_line(
    agent: Actor, ann: Actor, asked: None
) -> None:
    submit(agent, pair("c-1"))
    comparison, ids = leased_ids(ann)
    answers = {c: {"factual": True} for c in ids} | {f"x-{i}": {} for i in range(5000)}
    response = judge(ann, comparison, preference=1, answers=answers)
    assert refused_at(response) == [["answers", "x-0"]]
    assert len(response.content) < 2000


def test_a_judged_comparison_is_a_conflict_whatever_the_answers_say(
    agent: Actor, ann: Actor, asked: None
) -> None:
    submit(agent, pair("c-1"))
    comparison, ids = leased_ids(ann)
    assert (
        judge(
            ann, comparison, preference=1, answers={c: {"factual": True} for c in ids}
        ).status_code
        == 201
    )
    assert judge(ann, comparison, preference=1, answers={"nope": {}}).status_code == 409


def test_a_stored_answer_no_line_can_hold_leaves_its_judgment_out_of_the_export(
    agent: Actor, ann: Actor, asked: None, boss: Actor, rev: Actor
) -> None:
    submit(agent, pair("c-1"), pair("c-2"))
    for _ in range(2):
        comparison, ids = leased_ids(ann)
        assert (
            judge(
                ann, comparison, preference=1, answers={c: {"factual": True} for c in ids}
            ).status_code
            == 201
        )
    odd = Judgment.objects.order_by("id").first()
    assert odd is not None
    Judgment.objects.filter(pk=odd.pk).update(answers={"factual": {odd.shown[0]: 2**70}})
    lines = boss.exported("comparisons")
    assert [line["judgment_id"] for line in lines] == [
        j
        for j in Judgment.objects.order_by("id").values_list("judgment_id", flat=True)
        if j != odd.judgment_id
    ]
    assert rev.rest("get", "/api/agreement/").status_code == 200
