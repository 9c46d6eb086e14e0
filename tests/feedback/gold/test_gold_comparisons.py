"""Gold comparisons (issue 27, item 2): a manager marks a comparison's known best candidate;
the comparisons' queue mixes gold ones in at the project's rate, unmarked; a judgment of one
matches when it ranks that candidate alone first, counts in the person's gold accuracy with
the gold turns', and can pause their queue."""

from __future__ import annotations

from typing import Any

import pytest

from feedback.comparisons.models import Candidate, Comparison
from feedback.gold.models import GoldComparison, GoldResult, QueuePause
from tests.feedback.comparisons.test_comparisons_api import by_key, judge, lease, pair, submit
from tests.feedback.gold.test_gold import settings_set
from tests.harness import Actor, human_actor, refused_at

pytestmark = pytest.mark.django_db


def best_of(key: str) -> str:
    """The candidate_id of solver-a's answer in the comparison `key` (the right one)."""
    return Candidate.objects.get(
        comparison__comparison_id=key, component_name="solver-a"
    ).candidate_id


def mark(manager: Actor, key: str, best: str) -> Any:
    return manager.rest("put", f"/api/comparisons/{by_key(key)}/gold/", {"best": best})


def judged_first(person: Actor, leased: dict[str, Any], first: str) -> None:
    """Rank `first` best of the comparison leased."""
    others = [c["candidate_id"] for c in leased["candidates"] if c["candidate_id"] != first]
    response = judge(person, leased["id"], ranking=[first, *others])
    assert response.status_code == 201, response.content


def test_a_manager_marks_a_comparisons_best_candidate_and_nobody_else_may(
    agent: Actor, boss: Actor, ann: Actor
) -> None:
    submit(agent, pair("g-1"))
    marked = mark(boss, "g-1", best_of("g-1"))
    assert marked.status_code == 200, marked.content
    assert (marked.json()["comparison_id"], marked.json()["best"]) == ("g-1", best_of("g-1"))
    assert refused_at(mark(boss, "g-1", "no-such-candidate"), 400) == [["best"]]
    assert GoldComparison.objects.get().best == best_of("g-1")
    assert mark(ann, "g-1", best_of("g-1")).status_code == 403
    assert boss.rest("put", "/api/comparisons/999999/gold/", {"best": "x"}).status_code == 404
    url = f"/api/comparisons/{by_key('g-1')}/gold/"
    assert boss.rest("delete", url).status_code == 204
    assert boss.rest("delete", url).status_code == 404


def test_the_queue_mixes_gold_comparisons_in_and_scores_their_judgments(
    agent: Actor, boss: Actor
) -> None:
    submit(agent, pair("g-1"), pair("g-2"), *(pair(f"c-{i}") for i in range(6)))
    for key in ("g-1", "g-2"):
        assert mark(boss, key, best_of(key)).status_code == 200
    settings_set(gold_rate=0.5)
    person = human_actor("pia", "annotator")
    shown = []
    for _ in range(4):
        leased = lease(person)
        assert leased is not None
        key = Comparison.objects.get(pk=leased["id"]).comparison_id
        shown.append(key)
        # Right on the first gold comparison, wrong on the second.
        right = key != "g-2"
        solver_a = best_of(key)
        pick = (
            solver_a
            if right
            else next(
                c["candidate_id"] for c in leased["candidates"] if c["candidate_id"] != solver_a
            )
        )
        judged_first(person, leased, pick)
    assert shown[0] == "g-1" and "g-2" in shown
    results = dict(
        GoldResult.objects.values_list("gold_comparison__comparison__comparison_id", "matched")
    )
    assert results == {"g-1": 1, "g-2": 0}
    people = {p["annotator"]: p for p in boss.rest("get", "/api/gold/people/").json()["results"]}
    assert (people["pia"]["compared"], people["pia"]["matched"]) == (2, 1)


def test_a_gold_comparison_is_never_an_ordinary_one(agent: Actor, boss: Actor) -> None:
    submit(agent, pair("g-1"))
    mark(boss, "g-1", best_of("g-1"))
    person = human_actor("pia", "annotator")
    assert lease(person) is None  # no gold rate: no gold comparison either


def test_a_tie_for_first_does_not_match_and_a_careless_judge_is_paused(
    agent: Actor, boss: Actor
) -> None:
    submit(agent, *(pair(f"g-{i}") for i in range(3)), *(pair(f"c-{i}") for i in range(3)))
    for i in range(3):
        mark(boss, f"g-{i}", best_of(f"g-{i}"))
    settings_set(gold_rate=0.5, gold_min_items=2, gold_pause_below=0.5)
    person = human_actor("rand", "annotator")
    for _ in range(3):
        leased = lease(person)
        assert leased is not None
        assert judge(person, leased["id"], preference=0).status_code == 201
        if QueuePause.objects.filter(username="rand").exists():
            break
    assert set(GoldResult.objects.values_list("matched", flat=True)) == {0}
    assert refused_at(person.rest("post", "/api/queue/next/?kind=comparison"), 409) == [["queue"]]
