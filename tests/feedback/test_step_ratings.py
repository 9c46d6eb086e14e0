"""A rating, or a `learn/feedback`, may name one step of its turn (docs/contract.md, "Traces"):
it answers the rubric's questions asked of that step's kind, its correction and spans lie in
the step's output, a tool step's rating rates the tool, and the exports pair the step's input
with its output; a step the turn does not have is `invalid` naming `step_id`, storing nothing."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from feedback.models import Feedback, Rating, Turn
from tests.builders import feedback, feedback_req, turn
from tests.harness import Actor, human_actor, refused_at

pytestmark = pytest.mark.django_db

TOOL_INPUT = '{"city": "Paris"}'
TOOL_OUTPUT = "It is sunny in Paris today."
RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "correctness", "label": "Correct", "min": -1, "max": 1},
    {"kind": "boolean", "key": "tool_ok", "label": "Tool call correct?", "required": True,
     "step_kinds": ["tool"]},
    {"kind": "numeric", "key": "correctness_step", "label": "Step correct", "min": -1, "max": 1,
     "step_kinds": ["tool", "retrieval"]},
    {"kind": "spans", "key": "wrong", "label": "Wrong parts", "options": ["factual"],
     "step_kinds": ["tool"]},
]  # fmt: skip


@pytest.fixture
def traced(agent: Actor, boss: Actor) -> Turn:
    """A turn of the default project whose run called the tool `weather` once, and a model."""
    assert boss.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC}).status_code == (
        200
    )
    steps = [
        {"step_id": "a1", "name": "agent", "kind": "agent", "start": 1.0, "end": 4.0},
        {"step_id": "b2", "parent_id": "a1", "name": "weather", "kind": "tool",
         "input": TOOL_INPUT, "output": TOOL_OUTPUT, "start": 2.0, "end": 3.0},
        {"step_id": "c3", "parent_id": "a1", "name": "answer", "kind": "llm", "start": 3.0},
    ]  # fmt: skip
    body = {
        "turns": [
            {
                "correlation_id": "t-1",
                "component_name": "planner",
                "rated_turn": turn(),
                "steps": steps,
            }
        ]
    }
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    return Turn.objects.get(correlation_id="t-1")


def rate(actor: Actor, answers: dict[str, Any], **extra: Any) -> Any:
    return actor.rest("post", "/api/ratings/", {"turn": "t-1", "answers": answers, **extra})


def test_a_rating_of_a_tool_step_answers_its_kinds_questions_and_rates_the_tool(
    traced: Turn, ann: Actor
) -> None:
    answered = rate(ann, {"tool_ok": False, "correctness_step": -1}, step_id="b2")
    assert answered.status_code == 201, answered.content
    rating = Rating.objects.get()
    assert (rating.turn_id, rating.step_id) == (traced.pk, "b2")
    stored = Feedback.objects.get()  # the rating's score: its first scored answer, tool_ok
    assert (stored.step_id, stored.component_name, stored.score) == ("b2", "weather", -1.0)
    assert orjson.loads(stored.rated_turn or "{}")["prompt"] == TOOL_INPUT
    assert orjson.loads(stored.rated_turn or "{}")["response"] == TOOL_OUTPUT


def test_a_step_the_turn_does_not_have_is_invalid_and_nothing_is_stored(
    traced: Turn, agent: Actor, ann: Actor
) -> None:
    other = {
        "correlation_id": "t-2",
        "rated_turn": turn(),
        "steps": [{"step_id": "z9", "name": "x"}],
    }
    assert agent.rest("post", "/api/turns/", {"turns": [other]}).status_code == 201
    for step_id in ("nope", "z9"):  # z9 is a step of another turn
        assert refused_at(rate(ann, {"tool_ok": True}, step_id=step_id)) == [["step_id"]]
    assert not Rating.objects.exists()
    assert not Feedback.objects.exists()


def test_questions_are_asked_of_the_whole_turn_or_of_their_step_kinds_only(
    traced: Turn, ann: Actor
) -> None:
    assert refused_at(rate(ann, {"correctness": 1, "tool_ok": True})) == [["answers", "tool_ok"]]
    on_step = rate(ann, {"correctness": 1, "tool_ok": True}, step_id="b2")
    assert refused_at(on_step) == [["answers", "correctness"]]
    assert "the whole turn" in on_step.json()["details"][0]["msg"]
    assert refused_at(rate(ann, {"correctness_step": 1}, step_id="b2")) == [["answers", "tool_ok"]]
    nothing_for_llm = rate(ann, {"correctness_step": 1}, step_id="c3")
    assert refused_at(nothing_for_llm) == [["step_id"]]
    assert "llm steps" in nothing_for_llm.json()["message"]
    assert not Rating.objects.exists()


def test_spans_and_a_correction_lie_in_the_steps_output(traced: Turn, ann: Actor) -> None:
    beyond = len(TOOL_OUTPUT) + 1
    wrong = {"tool_ok": False, "wrong": [{"start": 0, "end": beyond, "label": "factual"}]}
    assert refused_at(rate(ann, wrong, step_id="b2")) == [["answers", "wrong"]]
    corrected = rate(
        ann,
        {"tool_ok": False},
        step_id="b2",
        correction="rainy",
        correction_span=[len("It is "), len("It is sunny")],
    )
    assert corrected.status_code == 201, corrected.content
    too_far = rate(
        ann, {"tool_ok": False}, step_id="b2", correction="x", correction_span=[0, beyond]
    )
    assert refused_at(too_far) == [["correction_span"]]


def test_a_step_correction_splices_into_the_exports_as_a_pair_of_the_steps_own(
    traced: Turn, ann: Actor, rev: Actor
) -> None:
    span = [len("It is "), len("It is sunny")]
    answers = {"tool_ok": False, "correctness_step": -0.5}
    sent = rate(ann, answers, step_id="b2", correction="rainy", correction_span=span)
    assert sent.status_code == 201, sent.content
    spliced = "It is rainy in Paris today."
    assert rev.exported("trl") == [
        {"prompt": TOOL_INPUT, "chosen": spliced, "rejected": TOOL_OUTPUT}
    ]
    (dpo,) = rev.exported("openai-dpo")
    assert dpo["input"]["messages"][0]["content"] == TOOL_INPUT
    assert dpo["preferred_output"][0]["content"] == spliced
    kto = rev.exported("kto")
    assert {(line["completion"], line["label"]) for line in kto} == {
        (TOOL_OUTPUT, False),
        (spliced, True),
    }
    (line,) = rev.exported("answers")
    assert (line["step_id"], line["correction_span"]) == ("b2", span)


def test_an_agents_feedback_may_name_a_step_of_its_turn_and_only_that(
    traced: Turn, agent: Actor, rev: Actor
) -> None:
    named = feedback(correlation_id="t-1", step_id="b2", polarity="corrective", correction="rainy")
    assert agent.learn(feedback_req(named)).status_code == 200
    assert Feedback.objects.get().step_id == "b2"
    # Stored with no rated turn of its own: the exports pair the step's input and output.
    assert rev.exported("trl") == [
        {"prompt": TOOL_INPUT, "chosen": "rainy", "rejected": TOOL_OUTPUT}
    ]
    for wrong, place in (
        ({"correlation_id": "t-1", "step_id": "zz"}, ["feedbacks", 0, "step_id"]),
        ({"correlation_id": "t-9", "step_id": "b2"}, ["feedbacks", 0, "step_id"]),
        ({"step_id": "b2"}, ["feedbacks", 0, "step_id"]),
    ):
        reply = agent.learn(feedback_req(feedback(**wrong)))
        assert reply.status_code == 400, reply.content
        assert [d["loc"] for d in reply.json()["details"]] == [place]
    assert Feedback.objects.count() == 1


def test_a_persons_ratings_of_a_step_and_of_its_turn_are_two_and_a_second_of_the_step_replaces(
    traced: Turn, ann: Actor, rev: Actor
) -> None:
    assert rate(ann, {"correctness": 1}).status_code == 201
    assert rate(ann, {"tool_ok": True, "correctness_step": 1}, step_id="b2").status_code == 201
    assert rate(ann, {"tool_ok": False, "correctness_step": -1}, step_id="b2").status_code == 201
    counted = rev.rest("get", "/api/feedback/?source=human").json()["results"]
    assert sorted((f["step_id"], f["score"]) for f in counted) == [("", 1.0), ("b2", -1.0)]


def test_a_steps_scores_are_a_unit_of_their_own_in_agreement(
    traced: Turn, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 3
    third = human_actor("tess", "annotator")
    assert rate(ann, {"correctness": 1}).status_code == 201
    assert rate(rev, {"tool_ok": True, "correctness_step": -1}, step_id="b2").status_code == 201
    assert rate(third, {"tool_ok": False, "correctness_step": 1}, step_id="b2").status_code == 201
    questions = {q["key"]: q for q in rev.rest("get", "/api/agreement/").json()["questions"]}
    # One unit, the tool step: its two people; the turn's one rating pairs with nothing.
    assert (questions["tool_ok"]["units"], questions["tool_ok"]["ratings"]) == (1, 2)
    assert questions["correctness"]["units"] == 0
    # A person's feedback on the step's correctness is not a second score of the turn's.
    on_step = feedback(correlation_id="t-1", step_id="b2", dimension="correctness", score=-1)
    assert rev.learn(feedback_req(on_step)).status_code == 200
    dimensions = {
        d["dimension"]: d for d in rev.rest("get", "/api/agreement/").json()["dimensions"]
    }
    assert dimensions["correctness"]["ratings"] == 0
    on_turn = feedback(correlation_id="t-1", dimension="correctness", score=-1)
    assert rev.learn(feedback_req(on_turn)).status_code == 200
    dimensions = {
        d["dimension"]: d for d in rev.rest("get", "/api/agreement/").json()["dimensions"]
    }
    assert dimensions["correctness"]["ratings"] == 2


def test_a_rubric_keeps_the_step_kinds_of_its_questions_and_refuses_an_unknown_one(
    boss: Actor,
) -> None:
    url = "/api/projects/default/rubric/"
    assert boss.rest("put", url, {"questions": RUBRIC}).status_code == 200
    shown = {q["key"]: q["step_kinds"] for q in boss.rest("get", url).json()["questions"]}
    assert shown["tool_ok"] == ["tool"] and shown["correctness"] == []
    bad = [*RUBRIC[:1], {**RUBRIC[1], "step_kinds": ["tool", "spaceship"]}]
    refused = boss.rest("put", url, {"questions": bad})
    assert refused.status_code == 400, refused.content
    assert refused.json()["details"][0]["loc"][:3] == ["questions", 1, "step_kinds"]


def test_rating_a_step_opens_the_others_ratings_of_that_step_only(
    traced: Turn, ann: Actor, rev: Actor, agent: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    assert rate(rev, {"correctness": 1}, comment="rev-on-turn").status_code == 201
    assert rate(rev, {"tool_ok": True}, step_id="b2", comment="rev-on-step").status_code == 201
    judged = feedback(correlation_id="t-1", source="self", comment="agent-on-turn")
    assert agent.learn(feedback_req(judged)).status_code == 200
    assert rate(ann, {"tool_ok": False}, step_id="b2").status_code == 201

    def shown_to_ann() -> set[str]:
        page = ann.browser().get(f"/turns/{traced.pk}/")
        return {rating.comment for rating, _ in page.context["ratings"]} - {""}

    def listed_to_ann() -> set[str]:
        results = ann.rest("get", "/api/feedback/").json()["results"]
        return {item["comment"] for item in results} - {""}

    assert shown_to_ann() == {"rev-on-step"}  # the step's, which ann rated; not the turn's
    assert "agent-on-turn" not in listed_to_ann()  # nor the agent's judgement of the turn
    assert rate(ann, {"correctness": -1}).status_code == 201
    assert shown_to_ann() == {"rev-on-step", "rev-on-turn", "agent-on-turn"}
    assert "agent-on-turn" in listed_to_ann()
