"""Smoke tests of bench.projects' library (bench/teams) on tiny sizes (the bench itself is `make bench`)."""

from __future__ import annotations

import random

import pytest
from django.core.cache import cache

from bench import projects
from bench.teams import build, data, report
from bench.teams.probes import GROUPS
from feedback.models import Feedback, Rating, Turn
from feedback.question_sums import question_agreements
from feedback.rubrics.answers import answers_clean
from feedback.rubrics.defaults import default_rubric
from feedback.rubrics.questions import rubric_from
from feedback.rubrics.scores import scores_of


def test_the_plan_shares_every_rating_largest_project_first_with_each_rubric_kind() -> None:
    plans = data.plan(20, 1_000_000, seed=3)
    assert sum(p.ratings for p in plans) == 1_000_000
    assert [p.ratings for p in plans] == sorted((p.ratings for p in plans), reverse=True)
    assert 250_000 < plans[0].ratings < 300_000 and plans[-1].ratings > 10_000
    assert {p.rubric for p in plans} == set(data.RUBRICS)
    assert len({a for p in plans for a in p.annotators}) < sum(len(p.annotators) for p in plans)
    assert data.plan(20, 1_000_000, seed=3) == plans


def test_the_drawn_answers_are_ones_each_rubric_takes_and_score() -> None:
    rng = random.Random(1)
    for stored in data.RUBRICS.values():
        rubric = default_rubric() if stored is None else rubric_from(stored)
        questions = None if stored is None else stored["questions"]
        project = data.ProjectData(
            data.ProjectPlan(0, "p", "likert", 300, 2, True, ("ann", "bob"), "rev", "man"), seed=1
        )
        for batch in project.turns(50):
            for draw in batch:
                answers = data.answers_for(questions, draw, "ann", rng)
                clean = answers_clean(rubric, answers, response=draw.fields["response"])
                assert scores_of(rubric, clean)


def test_a_projects_turns_are_the_same_whatever_the_chunk() -> None:
    spec = data.plan(2, 400, seed=5)[0]
    whole = [d.fields["correlation_id"] for b in data.ProjectData(spec, 5).turns(10_000) for d in b]
    chunked = [d.fields["correlation_id"] for b in data.ProjectData(spec, 5).turns(7) for d in b]
    assert whole == chunked and len(set(whole)) == len(whole)


@pytest.mark.django_db
def test_the_bulk_build_stores_the_planned_ratings_as_the_service_would() -> None:
    cache.clear()
    built = build.child_build(projects=2, ratings=300, seed=4, chunk=40)
    plans = data.plan(2, 300, seed=4)
    assert Rating.objects.count() == built["ratings"] == 300
    assert Feedback.objects.filter(source="human").count() == built["feedback"]
    assert Turn.objects.count() == built["turns"]
    assert built["verified"]["ratings"] == 300
    assert len(built["verified"]["ratings_by_service"]) == 2  # the two rubrics present
    likert = next(p for p in plans if p.rubric == "likert")
    answered = {q.key: q for q in question_agreements(likert.slug)}
    assert set(answered) == {"quality", "factual"}  # text has no level
    assert answered["quality"].units > 0  # two ratings a turn: pairs to agree on


def test_the_report_names_each_of_the_four_targets_and_the_comparison() -> None:
    figures = {"ms_p50": 5.0, "ms_p95": 9.0, "n": 40}
    slow = {"ms_p50": 900.0, "ms_p95": 1200.0, "n": 7}
    small = dict.fromkeys((label for labels in GROUPS.values() for label in labels), figures)
    big = small | {"GET /api/agreement/?project=": slow}
    rows = report.targets({"timed": ["s", "b"], "requests": {"s": small, "b": big}})
    verdicts = {row[0]: row[3] for row in rows}
    assert verdicts == {
        "queue next, slowest p95": "PASS",
        "rating page, slowest p95": "PASS",
        "explorer, slowest p95": "PASS",
        "agreement, slowest p95": "MISS",
    }
    assert projects.parse_args(["--compare-only"]).compare_only
