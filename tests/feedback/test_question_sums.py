"""Agreement per question is kept as ratings arrive and are undone (feedback.question_sums): what
it reads must be what counting every stored rating from scratch says, whatever came first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import pytest

from core.projects.services import project_add
from feedback.models import Feedback, QuestionTotals, QuestionUnit, Rating
from feedback.question_sums import question_sums_rebuild
from tests.feedback.test_ratings_api import RUBRIC, VERDICTS, queue, rate
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from core.projects.models import Project

pytestmark = pytest.mark.django_db

TURNS = 8


@pytest.fixture
def alpha(db: None, settings: Any) -> Project:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 3
    project = project_add(slug="alpha", name="Alpha")
    lead = human_actor("lead", "manager", project="alpha")
    assert lead.rest("put", "/api/projects/alpha/rubric/", {"questions": RUBRIC}).status_code == 200
    return project


@pytest.fixture
def raters(alpha: Project) -> list[Actor]:
    return [human_actor(f"r{i}", "annotator", project="alpha") for i in range(3)]


@pytest.fixture
def rene(alpha: Project) -> Actor:
    return human_actor("rene", "reviewer", project="alpha")


@pytest.fixture
def agent(alpha: Project) -> Actor:
    return token_actor("alpha-agent", "agent", project="alpha")


def answers_for(value: int, turn: int) -> dict[str, Any]:
    tags = [["terse"], ["terse", "wrong"], ["rude"]][value]
    return {
        "quality": 1 + value,
        "verdict": VERDICTS[value],
        "safe": value > 0,
        "tags": tags,
        "errors": [{"start": value, "end": value + 3 + turn % 2, "label": "factual"}],
    }


def agreement(reader: Actor) -> dict[str, dict[str, Any]]:
    response = reader.rest("get", "/api/agreement/")
    assert response.status_code == 200, response.content
    return {q["key"]: q for q in response.json()["questions"]}


def assert_same(kept: dict[str, dict[str, Any]], counted: dict[str, dict[str, Any]]) -> None:
    assert kept.keys() == counted.keys()
    for key, question in kept.items():
        other = counted[key]
        assert {k: v for k, v in question.items() if k != "alpha"} == {
            k: v for k, v in other.items() if k != "alpha"
        }
        assert question["alpha"] == pytest.approx(other["alpha"], abs=1e-9)


def test_agreement_kept_through_ratings_re_ratings_and_an_undo_is_the_count_from_scratch(
    alpha: Project, raters: list[Actor], rene: Actor, agent: Actor
) -> None:
    rows = queue(agent, *(f"t-{i}" for i in range(TURNS)))
    assert all(q["units"] == 0 for q in agreement(rene).values())  # counted, of nothing yet
    matrix = np.random.default_rng(11).integers(0, 3, size=(3, TURNS)).astype(float)
    for person, (values, rater) in enumerate(zip(matrix, raters, strict=True)):
        for index, (value, row) in enumerate(zip(values, rows, strict=True)):
            if (person + index) % 3 == 0:  # a first thought, replaced by the rating below
                assert rate(rater, row.pk, answers_for(2 - int(value), index)).status_code == 201
            assert rate(rater, row.pk, answers_for(int(value), index)).status_code == 201
    undone = Feedback.objects.filter(annotator_id="r1", correlation_id="t-3").latest("id")
    response = raters[1].rest("post", "/api/queue/undo/", {"feedback_id": undone.feedback_id})
    assert response.status_code == 200, response.content
    matrix[1, 3] = np.nan

    kept = agreement(rene)
    assert QuestionUnit.objects.filter(turn=rows[3]).count() == 5  # two people still answer
    assert question_sums_rebuild(alpha.pk) == 5 * TURNS
    assert_same(kept, agreement(rene))
    oracle = {
        "quality": krippendorff.alpha(reliability_data=matrix + 1, level_of_measurement="interval"),
        "verdict": krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"),
        "safe": krippendorff.alpha(
            reliability_data=np.where(np.isnan(matrix), np.nan, matrix > 0),
            level_of_measurement="nominal",
        ),
    }
    for key, expected in oracle.items():
        assert kept[key]["alpha"] == pytest.approx(expected)
    assert (kept["verdict"]["units"], kept["verdict"]["ratings"]) == (TURNS, 3 * TURNS - 1)


def test_an_undo_that_leaves_one_person_on_a_turn_takes_the_turn_out(
    raters: list[Actor], rene: Actor, agent: Actor
) -> None:
    (row,) = queue(agent, "t-1")
    for value, rater in enumerate(raters[:2]):
        assert rate(rater, row.pk, answers_for(value, 0)).status_code == 201
    assert agreement(rene)["quality"]["units"] == 1
    undone = Feedback.objects.filter(annotator_id="r0").latest("id")
    assert raters[0].rest("post", "/api/queue/undo/", {"feedback_id": undone.feedback_id})
    assert (agreement(rene)["quality"]["units"], agreement(rene)["quality"]["ratings"]) == (0, 0)
    assert not QuestionUnit.objects.exists()


def test_ratings_stored_before_anything_was_kept_are_counted_on_the_first_read(
    alpha: Project, raters: list[Actor], rene: Actor, agent: Actor
) -> None:
    rows = queue(agent, "t-1", "t-2")
    for person, rater in enumerate(raters):
        for index, row in enumerate(rows):
            assert rate(rater, row.pk, answers_for((person + index) % 3, index)).status_code == 201
    kept = agreement(rene)
    assert kept["quality"]["units"] == 2
    QuestionUnit.objects.all().delete()
    QuestionTotals.objects.all().delete()  # as a portal upgraded from before the sums were kept
    assert_same(agreement(rene), kept)
    assert QuestionTotals.objects.get(project=alpha, question="").built


def test_a_stored_answer_its_question_no_longer_takes_leaves_its_turn_out_and_breaks_nothing(
    alpha: Project, raters: list[Actor], rene: Actor, agent: Actor
) -> None:
    first, second = queue(agent, "t-1", "t-2")
    for value, rater in enumerate(raters[:2]):
        assert rate(rater, first.pk, answers_for(value, 0)).status_code == 201
        assert rate(rater, second.pk, answers_for(value, 1)).status_code == 201
    Rating.objects.filter(turn=first, annotator="r0").update(answers={"quality": "much"})
    assert rate(raters[2], first.pk, answers_for(2, 0)).status_code == 201  # counts t-1 again
    kept = agreement(rene)
    assert kept["quality"]["units"] == 1  # t-1's quality is left out, t-2's still counts
    assert kept["verdict"]["units"] == 2
    question_sums_rebuild(alpha.pk)
    assert_same(agreement(rene), kept)
