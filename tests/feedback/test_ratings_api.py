"""`POST /api/ratings/`: a person's answers to their project's rubric on one turn, all stored or
none; they count toward the queue as a rating from the page, end the person's lease, and are
what the per-question agreement and the `answers` export read (docs/contract.md, "Ratings")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import orjson
import pytest
from django.http import StreamingHttpResponse

from core.accounts.models import User
from core.projects.services import member_set, project_add
from feedback.models import Feedback, Lease, Rating, Turn
from tests.builders import turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from core.projects.models import Project

pytestmark = pytest.mark.django_db

RESPONSE = turn()["response"]
RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5, "step": 1,
     "required": True},
    {"kind": "categorical", "key": "verdict", "label": "Verdict",
     "options": ["bad", "ok", "good"], "ordered": True},
    {"kind": "categorical", "key": "tags", "label": "Tags", "options": ["terse", "wrong", "rude"],
     "multiple": True},
    {"kind": "boolean", "key": "safe", "label": "Safe"},
    {"kind": "text", "key": "notes", "label": "Notes"},
    {"kind": "spans", "key": "errors", "label": "Errors", "options": ["factual"]},
]  # fmt: skip


@pytest.fixture
def alpha(db: None) -> Project:
    project = project_add(slug="alpha", name="Alpha")
    lead = human_actor("lead", "manager", project="alpha")
    assert lead.rest("put", "/api/projects/alpha/rubric/", {"questions": RUBRIC}).status_code == 200
    return project


@pytest.fixture
def alpha_agent(alpha: Project) -> Actor:
    return token_actor("alpha-agent", "agent", project="alpha")


@pytest.fixture
def aria(alpha: Project) -> Actor:
    return human_actor("aria", "annotator", project="alpha")


@pytest.fixture
def rene(alpha: Project) -> Actor:
    return human_actor("rene", "reviewer", project="alpha")


def queue(agent: Actor, *names: str) -> list[Turn]:
    body = {"turns": [{"correlation_id": name, "rated_turn": turn()} for name in names]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    return [Turn.objects.get(correlation_id=name) for name in names]


def rate(actor: Actor, ref: Any, answers: dict[str, Any], **extra: Any) -> Any:
    return actor.rest("post", "/api/ratings/", {"turn": str(ref), "answers": answers, **extra})


def nothing_stored() -> bool:
    return not Rating.objects.exists() and not Feedback.objects.exists()


def test_a_rating_is_stored_under_the_rubric_version_it_was_given_on(
    alpha_agent: Actor, aria: Actor
) -> None:
    (row,) = queue(alpha_agent, "t-1")
    answers = {
        "quality": 4,
        "verdict": "good",
        "tags": ["wrong", "terse", "wrong"],
        "safe": True,
        "notes": "fine",
        "errors": [{"start": 2, "end": 5, "label": "factual"}],
    }
    response = rate(aria, row.pk, answers, comment="close")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["rubric_version"] == 2
    rating = Rating.objects.get(rating_id=body["rating_id"])
    assert (rating.turn_id, rating.annotator, rating.rubric_version) == (row.pk, "aria", 2)
    assert rating.answers == {
        **answers,
        "quality": 4.0,
        "tags": ["terse", "wrong"],
        "errors": [{"start": 2, "end": 5, "label": "factual"}],
    }
    assert rating.comment == "close"


@pytest.mark.parametrize("ref", ["t-1", "by-id"])
def test_a_turn_is_named_by_its_id_or_its_correlation_id(
    alpha_agent: Actor, aria: Actor, ref: str
) -> None:
    (row,) = queue(alpha_agent, "t-1")
    named = str(row.pk) if ref == "by-id" else ref
    assert rate(aria, named, {"quality": 3}).status_code == 201
    assert Rating.objects.get().turn_id == row.pk


@pytest.mark.parametrize(
    ("answers", "key"),
    [
        ({"quality": 7}, "quality"),
        ({"quality": 2.5}, "quality"),
        ({"quality": "high"}, "quality"),
        ({"quality": 3, "verdict": "great"}, "verdict"),
        ({"quality": 3, "tags": "wrong"}, "tags"),
        ({"quality": 3, "safe": "yes"}, "safe"),
        ({"quality": 3, "errors": [{"start": 0, "end": 10**6, "label": "factual"}]}, "errors"),
        ({"quality": 3, "mood": "calm"}, "mood"),
        ({"verdict": "ok"}, "quality"),
    ],
)
def test_a_bad_answer_is_refused_naming_its_key_and_nothing_is_stored(
    alpha_agent: Actor, aria: Actor, answers: dict[str, Any], key: str
) -> None:
    queue(alpha_agent, "t-1")
    response = rate(aria, "t-1", answers)
    assert response.status_code == 400, response.content
    assert [d["loc"] for d in response.json()["details"]] == [["answers", key]]
    assert nothing_stored()


def test_a_bad_correction_span_is_refused_and_nothing_is_stored(
    alpha_agent: Actor, aria: Actor
) -> None:
    queue(alpha_agent, "t-1")
    response = rate(aria, "t-1", {"quality": 2}, correction="Better.", correction_span=[0, 10**5])
    assert response.status_code == 400, response.content
    assert ["correction_span"] in [d["loc"] for d in response.json()["details"]]
    assert nothing_stored()


@pytest.mark.parametrize(
    "body",
    [
        {"answers": {"quality": 3}},
        {"turn": "t-1"},
        {"turn": 1, "answers": {"quality": 3}},
        {"turn": "t-1", "answers": [], "x": 1},
    ],
)
def test_a_bad_body_is_refused_naming_the_field(
    alpha_agent: Actor, aria: Actor, body: dict[str, Any]
) -> None:
    queue(alpha_agent, "t-1")
    response = aria.rest("post", "/api/ratings/", body)
    assert response.status_code == 400
    assert response.json()["details"]
    assert nothing_stored()


@pytest.mark.parametrize("ref", ["nope", "999999", "0", "-1", "99999999999999999999999"])
def test_a_turn_not_in_the_project_is_not_found(
    alpha_agent: Actor, aria: Actor, agent: Actor, ref: Any
) -> None:
    queue(alpha_agent, "t-1")
    queue(agent, "d-1")
    other = Turn.objects.get(correlation_id="d-1")
    for named in (ref, other.pk, "d-1"):
        response = rate(aria, named, {"quality": 3})
        assert response.status_code == 404, response.content
        assert response.json()["details"][0]["loc"] == ["turn"]
    assert nothing_stored()


def test_machines_do_not_rate(alpha_agent: Actor) -> None:
    queue(alpha_agent, "t-1")
    assert rate(alpha_agent, "t-1", {"quality": 3}).status_code == 403
    assert nothing_stored()


def test_a_person_rates_in_the_project_the_body_names(
    alpha_agent: Actor, agent: Actor, alpha: Project
) -> None:
    both = human_actor("bo", "annotator")
    member_set(project=alpha, person=User.objects.get(username="bo"), role="annotator")
    queue(alpha_agent, "t-1")
    assert rate(both, "t-1", {"quality": 3}).status_code == 404
    assert rate(both, "t-1", {"quality": 3}, project="alpha").status_code == 201
    assert rate(both, "t-1", {"quality": 3}, project="nowhere").status_code == 404


def test_a_rating_counts_toward_the_queue_and_ends_the_lease(
    alpha_agent: Actor, aria: Actor
) -> None:
    queue(alpha_agent, "t-1", "t-2")
    lease = aria.rest("post", "/api/queue/next/", {}).json()
    held = lease["turn"]
    assert Lease.objects.filter(username="aria").exists()
    assert rate(aria, held["id"], {"quality": 5}).status_code == 201
    assert not Lease.objects.filter(username="aria").exists()
    assert Turn.objects.get(pk=held["id"]).ratings_needed == 0
    following = aria.rest("post", "/api/queue/next/", {}).json()
    assert following["turn"]["id"] != held["id"]
    assert rate(aria, following["turn"]["id"], {"quality": 1}).status_code == 201
    assert aria.rest("post", "/api/queue/next/", {}).status_code == 204


def test_the_dimensions_of_the_default_rubric_are_stored_as_feedback_on_them(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queue(agent, "t-1")
    response = rate(
        ann, "t-1", {"correctness": 0.5, "tone": -1}, correction="Better.", comment="hm"
    )
    assert response.status_code == 201, response.content
    rows = {row.dimension: row for row in Feedback.objects.all()}
    assert set(rows) == {"correctness", "tone"}
    assert (rows["correctness"].score, rows["tone"].score) == (0.5, -1.0)
    assert all(row.source == "human" and row.annotator_id == "ann" for row in rows.values())
    assert [row.correction for row in rows.values()].count("Better.") == 1
    listed = rev.rest("get", "/api/feedback/?correlation_id=t-1").json()["results"]
    assert sorted(item["dimension"] for item in listed) == ["correctness", "tone"]


def test_a_rubric_of_its_own_is_one_feedback_with_the_ratings_score(
    alpha_agent: Actor, aria: Actor
) -> None:
    queue(alpha_agent, "t-1")
    assert rate(aria, "t-1", {"quality": 5, "verdict": "bad"}).status_code == 201
    (row,) = Feedback.objects.all()
    assert row.score == 1.0  # quality 5 of 1..5, the first scored answer
    assert row.polarity == "positive"


def test_a_rating_with_no_score_is_refused(alpha: Project, alpha_agent: Actor) -> None:
    """Its rubric has a score to give (an optional one): these answers leave it out."""
    lead = human_actor("lead2", "manager", project="alpha")
    words = [
        {"kind": "text", "key": "notes", "label": "Notes"},
        {"kind": "boolean", "key": "solved", "label": "Solved"},
    ]
    assert lead.rest("put", "/api/projects/alpha/rubric/", {"questions": words}).status_code == 200
    queue(alpha_agent, "t-1")
    response = rate(lead, "t-1", {"notes": "just words"})
    assert response.status_code == 400
    assert [d["loc"] for d in response.json()["details"]] == [["answers"]]
    assert nothing_stored()


def test_answers_given_on_a_rubric_version_no_longer_current_are_refused(
    alpha: Project, alpha_agent: Actor, aria: Actor
) -> None:
    lead = human_actor("lead2", "manager", project="alpha")
    more = [*RUBRIC, {"kind": "boolean", "key": "cited", "label": "Cites its sources"}]
    assert lead.rest("put", "/api/projects/alpha/rubric/", {"questions": more}).status_code == 200
    queue(alpha_agent, "t-1")
    stale = rate(aria, "t-1", {"quality": 3}, rubric_version=2)
    assert stale.status_code == 409, stale.content
    (said,) = stale.json()["details"]
    assert said["loc"] == ["rubric_version"] and "version 3" in said["msg"]
    assert nothing_stored()
    current = rate(aria, "t-1", {"quality": 3}, rubric_version=3)
    assert current.status_code == 201
    assert current.json()["rubric_version"] == 3


@pytest.mark.parametrize("version", [0, -1, 2.5, "2", True, [2]])
def test_a_bad_rubric_version_is_refused_naming_it(
    alpha_agent: Actor, aria: Actor, version: Any
) -> None:
    queue(alpha_agent, "t-1")
    response = rate(aria, "t-1", {"quality": 3}, rubric_version=version)
    assert response.status_code == 400, response.content
    assert [d["loc"][0] for d in response.json()["details"]] == ["rubric_version"]
    assert nothing_stored()


# --- what reads the ratings: agreement per question, the `answers` export ----------------------

VERDICTS = ["bad", "ok", "good"]


@pytest.fixture
def three_raters(alpha: Project, settings: Any) -> list[Actor]:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 3
    return [human_actor(f"r{i}", "annotator", project="alpha") for i in range(3)]


def test_agreement_per_question_is_krippendorffs_alpha_over_the_latest_answers(
    three_raters: list[Actor], alpha_agent: Actor, rene: Actor
) -> None:
    rows = queue(alpha_agent, *(f"t-{i}" for i in range(6)))
    rng = np.random.default_rng(7)
    matrix = rng.integers(0, 3, size=(3, len(rows))).astype(float)
    matrix[2, 0] = np.nan  # one person left one turn out
    for person, rater in zip(matrix, three_raters, strict=True):
        for value, row in zip(person, rows, strict=True):
            if not np.isnan(value):
                assert rate(rater, row.pk, {"quality": 3, "verdict": "bad"}).status_code == 201
                answer = {"quality": 1 + int(value), "verdict": VERDICTS[int(value)]}
                assert rate(rater, row.pk, answer).status_code == 201  # replaces the first
    body = rene.rest("get", "/api/agreement/?project=alpha").json()
    questions = {q["key"]: q for q in body["questions"]}
    assert set(questions) == {"quality", "verdict", "tags", "safe", "errors"}
    assert len(body["dimensions"]) == 5
    verdict = questions["verdict"]
    assert (verdict["level"], verdict["units"], verdict["ratings"]) == ("ordinal", 6, 17)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    assert verdict["alpha"] == pytest.approx(expected)
    quality = krippendorff.alpha(reliability_data=matrix + 1, level_of_measurement="interval")
    assert questions["quality"]["alpha"] == pytest.approx(quality)
    assert questions["tags"]["units"] == 0


def test_agreement_reads_the_project_it_is_asked_for(
    alpha_agent: Actor, aria: Actor, rene: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queue(alpha_agent, "t-1")
    assert rate(aria, "t-1", {"quality": 3}).status_code == 201
    assert rate(rene, "t-1", {"quality": 4}).status_code == 201
    alpha_view = rene.rest("get", "/api/agreement/").json()["questions"]
    assert {q["key"]: q["ratings"] for q in alpha_view}["quality"] == 2
    default_view = rev.rest("get", "/api/agreement/").json()["questions"]
    assert [q["key"] for q in default_view] == [
        "correctness",
        "helpfulness",
        "safety",
        "tone",
        "plan_quality",
    ]
    assert all(q["ratings"] == 0 for q in default_view)
    assert rev.rest("get", "/api/agreement/?project=alpha").status_code == 404


def exported(actor: Actor, query: str = "") -> list[dict[str, Any]]:
    response = actor.client.get(f"/api/exports/answers.jsonl{query}")
    assert response.status_code == 200, response
    assert isinstance(response, StreamingHttpResponse)
    return [orjson.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def test_the_answers_export_holds_each_rating_as_stored(
    alpha: Project,
    three_raters: list[Actor],
    alpha_agent: Actor,
    rene: Actor,
    agent: Actor,
    ann: Actor,
    boss: Actor,
) -> None:
    rows = queue(alpha_agent, "t-1", "t-2")
    for index, rater in enumerate(three_raters):
        answers = {"quality": 1 + index, "tags": ["rude", "terse"]}
        assert rate(rater, rows[index % 2].pk, answers, correction="Fixed.").status_code == 201
    queue(agent, "d-1")
    assert rate(ann, "d-1", {"safety": 1}).status_code == 201
    lines = exported(rene)
    stored = Rating.objects.filter(project=alpha).order_by("id")
    assert [line["rating_id"] for line in lines] == [r.rating_id for r in stored]
    for line, rating in zip(lines, stored, strict=True):
        assert line == {
            "rating_id": rating.rating_id,
            "turn": rating.turn_id,
            "correlation_id": rating.turn.correlation_id,
            "session_id": rating.turn.session_id,
            "step_id": "",
            "annotator": rating.annotator,
            "rubric_version": 2,
            "answers": rating.answers,
            "comment": "",
            "correction": "Fixed.",
            "correction_span": None,
            "ts": rating.ts,
        }
    assert lines[0]["answers"]["tags"] == ["terse", "rude"]
    assert [line["correlation_id"] for line in exported(rene, "?project=alpha")] == [
        "t-1",
        "t-2",
        "t-1",
    ]
    assert [line["answers"] for line in exported(boss)] == [{"safety": 1.0}]


def test_an_undone_rating_leaves_the_export_and_the_agreement(
    alpha_agent: Actor, aria: Actor, rene: Actor
) -> None:
    queue(alpha_agent, "t-1")
    rating_id = rate(aria, "t-1", {"quality": 2}).json()["rating_id"]
    (row,) = Feedback.objects.all()
    undone = aria.rest("post", "/api/queue/undo/", {"feedback_id": row.feedback_id})
    assert undone.status_code == 200, undone.content
    assert rating_id in row.feedback_id
    assert exported(rene) == []
    assert rate(aria, "t-1", {"quality": 4}).status_code == 201
    assert [line["answers"] for line in exported(rene)] == [{"quality": 4.0}]


def test_undoing_one_feedback_of_a_rating_takes_the_whole_rating_back(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queue(agent, "t-1")
    assert rate(ann, "t-1", {"correctness": 1, "safety": -1}).status_code == 201
    first = Feedback.objects.order_by("id").first()
    assert first is not None
    undone = ann.rest("post", "/api/queue/undo/", {"feedback_id": first.feedback_id})
    assert undone.status_code == 200, undone.content
    assert rev.rest("get", "/api/feedback/?correlation_id=t-1").json()["results"] == []
    assert exported(rev) == []
    assert Lease.objects.filter(username="ann").exists()


def test_an_undone_feedback_named_like_anothers_rating_leaves_that_rating_counted(
    alpha_agent: Actor, aria: Actor, rene: Actor
) -> None:
    queue(alpha_agent, "t-1", "t-2")
    rating_id = rate(aria, "t-1", {"quality": 2}).json()["rating_id"]
    bea = human_actor("bea", "annotator", project="alpha")
    named = {
        "feedback_id": f"{rating_id}.mine",
        "correlation_id": "t-2",
        "polarity": "positive",
        "score": 0.5,
    }
    sent = bea.learn({"type": "learn/feedback/req", "id": "r-1", "feedbacks": [named]})
    assert sent.status_code == 200, sent.content
    undone = bea.rest("post", "/api/queue/undo/", {"feedback_id": named["feedback_id"]})
    assert undone.status_code == 200, undone.content
    assert [line["rating_id"] for line in exported(rene)] == [rating_id]


def test_an_undone_rating_leaves_the_other_peoples_ratings_of_the_turn_counted(
    alpha_agent: Actor, aria: Actor, rene: Actor
) -> None:
    queue(alpha_agent, "t-1")
    alpha_project = Turn.objects.get(correlation_id="t-1").project
    alpha_project.ratings_per_turn = 2
    alpha_project.save()
    bea = human_actor("bea", "annotator", project="alpha")
    kept = rate(bea, "t-1", {"quality": 5}).json()["rating_id"]
    rate(aria, "t-1", {"quality": 1})
    row = Feedback.objects.get(annotator_id="aria")
    assert (
        aria.rest("post", "/api/queue/undo/", {"feedback_id": row.feedback_id}).status_code == 200
    )
    assert [line["rating_id"] for line in exported(rene)] == [kept]
