"""Judged comparisons as routing evidence (issue 26, item 6): where a project lets them count,
each judgment is a success of its winner's component and a failure of its loser's, which adapt
and plans weigh like any experience; nowhere else does a judgment move routing."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from core.projects.models import Project
from feedback.comparisons.models import Candidate, Judgment
from feedback.models import Experience
from feedback.selectors import reward_sums
from feedback.selectors.components import component_records
from refinement.models import HistoryEntry
from tests.builders import adapt_req
from tests.feedback.comparisons.test_comparisons_api import inline, judge, lease, pair, submit
from tests.harness import Actor, default_pk, http_send, human_actor, ok
from tests.refinement.helpers import weight

pytestmark = pytest.mark.django_db


@pytest.fixture
def counting(db: None) -> None:
    Project.objects.filter(pk=default_pk()).update(comparisons_as_evidence=True)


def judge_first_better(actor: Actor, margin: int = 2) -> tuple[str, str]:
    """Lease the next comparison and prefer the candidate shown first: (winner, loser) ids."""
    leased = lease(actor)
    assert leased is not None
    first, second = (c["candidate_id"] for c in leased["candidates"])
    response = judge(actor, leased["id"], preference=-margin)
    assert response.status_code == 201, response.content
    return first, second


def components_of(submitted: Any) -> dict[str, str]:
    """candidate_id -> component of the comparisons `submitted` stored."""
    assert submitted.status_code == 201, submitted.content
    return dict(Candidate.objects.values_list("candidate_id", "component_name"))


def sums() -> dict[str, tuple[int, float]]:
    return {
        name: (n, total)
        for name, n, total in reward_sums(default_pk(), settings.LEARNPORTAL_ADAPT_WINDOW)
    }


def test_by_default_a_judgment_is_no_routing_evidence(agent: Actor, ann: Actor) -> None:
    submit(agent, pair("c-1"))
    judge_first_better(ann)
    assert not Experience.objects.exists()
    assert sums() == {}


def test_a_judgment_counts_for_the_winner_and_against_the_loser(
    agent: Actor, ann: Actor, counting: None
) -> None:
    names = components_of(submit(agent, pair("c-1")))
    winner, loser = judge_first_better(ann)
    assert sums() == {names[winner]: (1, 1.0), names[loser]: (1, -1.0)}
    stored = {e.component_name: e for e in Experience.objects.all()}
    assert stored[names[winner]].success is True
    assert stored[names[loser]].success is False
    # Nothing routed these calls: no behaviour probability, and no call in the stats.
    assert {e.behaviour_prob for e in stored.values()} == {None}
    assert all(e.owner == "user:ann" and e.episode_id == "c-1" for e in stored.values())
    assert {r["calls_total"] for r in component_records(default_pk(), "")} == {0}


def test_a_slight_preference_counts_as_much_as_a_strong_one(
    agent: Actor, ann: Actor, counting: None
) -> None:
    names = components_of(submit(agent, pair("c-1")))
    winner, _ = judge_first_better(ann, margin=1)
    assert sums()[names[winner]] == (1, 1.0)


def test_a_tie_counts_for_nobody(agent: Actor, ann: Actor, counting: None) -> None:
    submit(agent, pair("c-1"))
    leased = lease(ann)
    assert leased is not None
    assert judge(ann, leased["id"], preference=0).status_code == 201
    assert not Experience.objects.exists()


def test_a_ranking_counts_its_best_and_its_worst_only(
    agent: Actor, ann: Actor, counting: None
) -> None:
    three = {"prompt": "p", "candidates": [inline(str(i), f"c{i}") for i in range(3)]}
    names = components_of(submit(agent, three))
    leased = lease(ann)
    assert leased is not None
    ids = [c["candidate_id"] for c in leased["candidates"]]
    assert judge(ann, leased["id"], ranking=[ids[1], ids[2], ids[0]]).status_code == 201
    assert sums() == {names[ids[1]]: (1, 1.0), names[ids[0]]: (1, -1.0)}


def test_one_component_on_both_sides_counts_nothing(
    agent: Actor, ann: Actor, counting: None
) -> None:
    same = {"prompt": "p", "candidates": [inline("a", "solver", "m1"), inline("b", "solver", "m2")]}
    submit(agent, same)
    judge_first_better(ann)
    assert not Experience.objects.exists()


def test_another_projects_setting_does_not_count_here(agent: Actor, ann: Actor) -> None:
    Project.objects.create(slug="beta", name="Beta", comparisons_as_evidence=True)
    submit(agent, pair("c-1"))
    judge_first_better(ann)
    assert not Experience.objects.exists()


def test_judgments_move_the_routing_weights_through_an_adapt(
    agent: Actor, boss: Actor, counting: None
) -> None:
    Project.objects.filter(pk=default_pk()).update(ratings_per_turn=3)
    prompts = [pair(f"c-{i}") for i in range(6)]
    names = components_of(submit(agent, *prompts))
    people = [human_actor(f"judge-{i}", "annotator") for i in range(3)]
    preferred = "solver-a"
    for person in people:
        while (leased := lease(person)) is not None:
            by_name = {names[c["candidate_id"]]: c["candidate_id"] for c in leased["candidates"]}
            ranking = [by_name[preferred], by_name["solver-b"]]
            assert judge(person, leased["id"], ranking=ranking).status_code == 201
    assert sums() == {"solver-a": (18, 18.0), "solver-b": (18, -18.0)}

    ok(http_send(boss, adapt_req("epsilon_greedy")))
    assert HistoryEntry.objects.filter(kind="adapt").exists()
    assert weight("solver-a") > 0.5 > weight("solver-b")  # type: ignore[operator]


def test_a_manager_turns_it_on_and_an_annotator_may_not(ann: Actor) -> None:
    lead = human_actor("lead", "manager")
    refused = ann.rest("patch", "/api/projects/default/", {"comparisons_as_evidence": True})
    assert refused.status_code == 403
    changed = lead.rest("patch", "/api/projects/default/", {"comparisons_as_evidence": True})
    assert changed.status_code == 200, changed.content
    assert changed.json()["comparisons_as_evidence"] is True
    assert Project.objects.get(pk=default_pk()).comparisons_as_evidence is True
    bad = lead.rest("patch", "/api/projects/default/", {"comparisons_as_evidence": "yes"})
    assert bad.status_code == 400
    assert bad.json()["details"][0]["loc"] == ["comparisons_as_evidence"]


def test_past_the_judges_quota_a_judgment_is_stored_without_its_evidence(
    agent: Actor, ann: Actor, counting: None, settings: Any
) -> None:
    settings.LEARNPORTAL_EXPERIENCE_LIMIT = 1
    settings.LEARNPORTAL_EXPERIENCE_OVERFLOW = "reject"
    submit(agent, pair("c-1"))
    judge_first_better(ann)
    assert Judgment.objects.count() == 1
    assert not Experience.objects.exists()
    assert sums() == {}
