"""Comparisons over REST (docs/contract.md, "Comparisons"): agents and managers send candidates
for one prompt, all or nothing; people lease them from the queue (`?kind=comparison`), each
seeing the candidates in an order of their own and no component or model; a judgment is a
preference of two or a ranking, by the rules of ratings (distinct people, leases)."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

import pytest
from django.db import connections

from core.accounts.roles import Role
from core.projects.services import project_add
from feedback.comparisons.models import Comparison, ComparisonLease, Judgment
from feedback.comparisons.queue import comparison_next, shown_order
from tests.builders import turn
from tests.factories import PrincipalFactory
from tests.harness import Actor, at_once, human_actor, refused_at

pytestmark = pytest.mark.django_db


def inline(response: str, component: str, model: str = "") -> dict[str, Any]:
    return {"response": response, "component_name": component, "model": model}


def pair(key: str, prompt: str = "What is 2+2?") -> dict[str, Any]:
    return {
        "comparison_id": key,
        "prompt": prompt,
        "candidates": [inline(f"{key}: four", "solver-a", "m-a"), inline(f"{key}: 5", "solver-b")],
    }


def submit(actor: Actor, *comparisons: dict[str, Any]) -> Any:
    return actor.rest("post", "/api/comparisons/", {"comparisons": list(comparisons)})


def lease(actor: Actor) -> dict[str, Any] | None:
    response = actor.rest("post", "/api/queue/next/?kind=comparison")
    if response.status_code == 204:
        return None
    assert response.status_code == 200, response.content
    leased: dict[str, Any] = response.json()["comparison"]
    return leased


def by_key(comparison_id: str) -> int:
    return Comparison.objects.get(comparison_id=comparison_id).pk


def judge(actor: Actor, comparison: int, **judgment: Any) -> Any:
    return actor.rest("post", f"/api/comparisons/{comparison}/judgments/", judgment)


def test_an_agent_sends_comparisons_and_each_candidate_gets_an_id(agent: Actor) -> None:
    response = submit(agent, pair("c-1"), pair("c-2"))
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["received"], body["created"]) == (2, 2)
    assert [c["comparison_id"] for c in body["comparisons"]] == ["c-1", "c-2"]
    assert all(len(set(c["candidates"])) == 2 for c in body["comparisons"])
    stored = Comparison.objects.get(comparison_id="c-1")
    assert [c.component_name for c in stored.candidates.order_by("position")] == [
        "solver-a",
        "solver-b",
    ]


def test_a_comparison_sent_again_is_stored_once_with_the_same_ids(agent: Actor) -> None:
    first = submit(agent, pair("c-1")).json()["comparisons"][0]
    again = submit(agent, pair("c-1"), pair("c-1")).json()
    assert again["created"] == 0
    assert again["comparisons"] == [first, first]
    assert Comparison.objects.count() == 1


def test_a_comparison_without_an_id_gets_one(agent: Actor) -> None:
    body = pair("")
    del body["comparison_id"]
    stored = submit(agent, body).json()["comparisons"][0]
    assert stored["comparison_id"]
    assert Comparison.objects.get().comparison_id == stored["comparison_id"]


def test_a_candidate_may_be_a_queued_turn_whose_response_it_keeps(agent: Actor) -> None:
    sent = {"correlation_id": "t-1", "component_name": "planner", "rated_turn": turn()}
    assert agent.rest("post", "/api/turns/", {"turns": [sent]}).status_code == 201
    body = {
        "prompt": turn()["prompt"],
        "candidates": [{"turn": "t-1"}, inline("another answer", "solver-b")],
    }
    assert submit(agent, body).status_code == 201
    kept = Comparison.objects.get().candidates.get(position=0)
    assert (kept.response, kept.component_name, kept.model) == (
        turn()["response"],
        "planner",
        turn()["model"],
    )


@pytest.mark.parametrize(
    ("candidates", "place"),
    [
        ([inline("only one", "a")], ["comparisons", 1, "candidates"]),
        ([inline(str(i), "a") for i in range(9)], ["comparisons", 1, "candidates"]),
        ([{"response": "no component"}, inline("b", "b")], ["comparisons", 1, "candidates", 0,
                                                            "component_name"]),
        ([{"turn": "t-1", "response": "both"}, inline("b", "b")], ["comparisons", 1, "candidates",
                                                                   0, "turn"]),
        ([{"turn": "no-such-turn"}, inline("b", "b")], ["comparisons", 1, "candidates", 0,
                                                        "turn"]),
    ],
)  # fmt: skip
def test_a_bad_comparison_is_refused_naming_its_place_and_none_is_stored(
    agent: Actor, candidates: list[dict[str, Any]], place: list[Any]
) -> None:
    bad = {"comparison_id": "bad", "prompt": "p", "candidates": candidates}
    response = submit(agent, pair("good"), bad)
    assert refused_at(response) == [place]
    assert not Comparison.objects.exists()


def test_a_turn_of_another_prompt_is_no_candidate(agent: Actor) -> None:
    sent = {"correlation_id": "t-1", "rated_turn": turn()}
    agent.rest("post", "/api/turns/", {"turns": [sent]})
    body = {"prompt": "Another question", "candidates": [{"turn": "t-1"}, inline("b", "b")]}
    response = submit(agent, body)
    assert refused_at(response) == [["comparisons", 0, "candidates", 0, "turn"]]
    assert response.json()["details"][0]["msg"] == "the turn's prompt is not the comparison's"


def test_annotators_send_no_comparisons_and_nobody_does_without_a_credential(
    ann: Actor, anonymous: Actor
) -> None:
    assert submit(ann, pair("c-1")).status_code == 403
    assert submit(anonymous, pair("c-1")).status_code == 401
    assert not Comparison.objects.exists()


def test_a_manager_sends_comparisons_in_their_project(db: None) -> None:
    lead = human_actor("lead", "manager")
    assert submit(lead, pair("c-1")).status_code == 201


def test_the_queue_leases_a_comparison_in_an_order_of_each_persons_own_without_names(
    agent: Actor, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    ids = submit(agent, pair("c-1")).json()["comparisons"][0]["candidates"]
    mine, theirs = lease(ann), lease(rev)
    assert mine is not None and theirs is not None
    assert mine["id"] == theirs["id"] == Comparison.objects.get(comparison_id="c-1").pk
    assert "comparison_id" not in mine  # the sender's id may name the models
    assert [c["candidate_id"] for c in mine["candidates"]] == shown_order(mine["id"], ids, "ann")
    assert [c["candidate_id"] for c in theirs["candidates"]] == shown_order(mine["id"], ids, "rev")
    assert lease(ann) == mine  # held: the same, in the same order
    shown = str(mine)
    assert "solver" not in shown and "m-a" not in shown


def test_the_shown_order_differs_between_people(db: None) -> None:
    candidates = ["a", "b", "c", "d"]
    orders = {tuple(shown_order(7, candidates, f"person-{i}")) for i in range(40)}
    assert len(orders) > 10  # 24 orders exist: drawn per person, not one for all
    assert all(sorted(order) == candidates for order in orders)


def test_a_preference_is_read_in_the_order_this_person_was_shown(agent: Actor, ann: Actor) -> None:
    submit(agent, pair("c-1"))
    leased = lease(ann)
    assert leased is not None
    first, second = (c["candidate_id"] for c in leased["candidates"])
    response = judge(ann, leased["id"], preference=2, rationale="the second is right")
    assert response.status_code == 201, response.content
    assert response.json()["ranking"] == [second, first]
    stored = Judgment.objects.get()
    assert (stored.shown, stored.ranks, stored.preference) == ([first, second], [1, 0], 2)
    assert not ComparisonLease.objects.exists()  # the judgment ends the lease
    assert lease(ann) is None  # judged: never offered again


def test_a_tie_ranks_both_first(agent: Actor, ann: Actor) -> None:
    submit(agent, pair("c-1"))
    leased = lease(ann)
    assert leased is not None
    answer = judge(ann, leased["id"], preference=0).json()
    assert answer["tie"] is True
    assert Judgment.objects.get().ranks == [0, 0]


def test_a_ranking_orders_any_number_of_candidates(agent: Actor, ann: Actor) -> None:
    three = {"prompt": "p", "candidates": [inline(str(i), f"c{i}") for i in range(3)]}
    submit(agent, three)
    leased = lease(ann)
    assert leased is not None
    ids = [c["candidate_id"] for c in leased["candidates"]]
    best_first = [ids[2], ids[0], ids[1]]
    answer = judge(ann, leased["id"], ranking=best_first).json()
    assert answer["ranking"] == best_first
    assert Judgment.objects.get().ranks == [1, 2, 0]


@pytest.mark.parametrize(
    ("judgment", "place"),
    [
        ({}, ["preference"]),
        ({"preference": 1, "ranking": []}, ["preference"]),
        ({"preference": 3}, ["preference"]),
        ({"preference": 1.0}, ["preference"]),
        ({"ranking": ["x", "y"]}, ["ranking"]),
        ({"preference": 1, "rationale": "a\x00b"}, ["rationale"]),
    ],
)
def test_a_bad_judgment_is_refused_naming_its_field_and_nothing_is_stored(
    agent: Actor, ann: Actor, judgment: dict[str, Any], place: list[str]
) -> None:
    submit(agent, pair("c-1"))
    leased = lease(ann)
    assert leased is not None
    assert refused_at(judge(ann, leased["id"], **judgment)) == [place]
    assert not Judgment.objects.exists()
    assert ComparisonLease.objects.filter(username="ann").exists()


def test_a_preference_needs_two_candidates(agent: Actor, ann: Actor) -> None:
    submit(agent, {"prompt": "p", "candidates": [inline(str(i), f"c{i}") for i in range(3)]})
    leased = lease(ann)
    assert leased is not None
    assert refused_at(judge(ann, leased["id"], preference=1)) == [["preference"]]


def test_a_person_judges_a_comparison_once(agent: Actor, ann: Actor) -> None:
    submit(agent, pair("c-1"))
    comparison = Comparison.objects.get().pk
    assert judge(ann, comparison, preference=1).status_code == 201
    assert refused_at(judge(ann, comparison, preference=-1), 409) == [["comparison"]]
    assert Judgment.objects.count() == 1


def test_a_comparison_takes_as_many_people_as_it_needs_and_no_more(
    agent: Actor, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    submit(agent, pair("c-1"), pair("c-2"))
    third = human_actor("tess", "annotator")
    first, second = lease(ann), lease(rev)
    assert first is not None and second is not None and first["id"] == second["id"]
    held = lease(third)
    assert held is not None and held["id"] == by_key("c-2")  # c-1 is held by the two
    refused = judge(third, first["id"], preference=1)
    assert refused_at(refused, 409) == [["comparison"]]
    assert refused.json()["details"][0]["msg"] == (
        "the judgments this comparison still needs are leased to other people"
    )
    assert judge(ann, first["id"], preference=1).status_code == 201
    assert judge(rev, first["id"], preference=-1).status_code == 201
    refused = judge(third, first["id"], preference=1)
    assert refused.json()["details"][0]["msg"] == (
        "this comparison has the 2 judgments it needs from distinct people"
    )
    assert Comparison.objects.get(comparison_id="c-1").judgments_needed == 0


def test_a_released_comparison_is_offered_again_and_a_skipped_one_is_not(
    agent: Actor, ann: Actor
) -> None:
    submit(agent, pair("c-1"), pair("c-2"))
    leased = lease(ann)
    assert leased is not None
    release = {"comparison": leased["id"]}
    assert ann.rest("post", "/api/queue/release/", release).status_code == 204
    again = lease(ann)
    assert again is not None and again["id"] == leased["id"]
    assert ann.rest("post", "/api/queue/skip/", release).status_code == 204
    after = lease(ann)
    assert after is not None and after["id"] == by_key("c-2")
    assert refused_at(ann.rest("post", "/api/queue/skip/", release), 404) == [["comparison"]]


def test_release_names_a_turn_or_a_comparison_not_both(ann: Actor) -> None:
    both = {"turn": 1, "comparison": 1}
    assert refused_at(ann.rest("post", "/api/queue/release/", both)) == [["turn"]]
    assert refused_at(ann.rest("post", "/api/queue/release/", {})) == [["turn"]]


def test_a_comparison_is_leased_whole(ann: Actor) -> None:
    response = ann.rest("post", "/api/queue/next/?kind=comparison&steps=tool")
    assert refused_at(response) == [["kind"]]
    assert refused_at(ann.rest("post", "/api/queue/next/?kind=turns")) == [["kind"]]


def test_another_projects_comparison_is_not_found(agent: Actor) -> None:
    submit(agent, pair("c-1"))
    project_add(slug="beta", name="Beta")
    outsider = human_actor("out", "annotator", project="beta")
    comparison = Comparison.objects.get().pk
    refused = judge(outsider, comparison, preference=1)
    assert refused_at(refused, 404) == [["comparison"]]
    assert lease(outsider) is None


def test_a_change_of_the_ratings_a_turn_needs_counts_for_comparisons(
    agent: Actor, ann: Actor, boss: Actor
) -> None:
    submit(agent, pair("c-1"))
    judge(ann, Comparison.objects.get().pk, preference=1)
    assert Comparison.objects.get().judgments_needed == 0
    response = boss.rest("patch", "/api/projects/default/", {"ratings_per_turn": 3})
    assert response.status_code == 200, response.content
    assert Comparison.objects.get().judgments_needed == 2


PEOPLE = [PrincipalFactory.build(role=Role.ANNOTATOR, name=f"p-{i}") for i in range(6)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("per_turn", [1, 2])
def test_people_asking_at_once_never_share_a_comparison_beyond_its_need(
    agent: Actor, settings: Any, per_turn: int
) -> None:
    """Six people, two comparisons: none held by more people than it needs."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = per_turn
    for round_ in range(3):
        ComparisonLease.objects.all().delete()
        Comparison.objects.all().delete()
        submit(agent, pair(f"r{round_}-0"), pair(f"r{round_}-1"))
        answers = at_once([partial(comparison_next, who) for who in PEOPLE])
        held = Counter(a.comparison.pk for a in answers if a is not None)
        assert len(held) == 2, held
        assert all(count <= per_turn for count in held.values()), held
        if connections["default"].vendor == "sqlite":
            assert sorted(held.values()) == [per_turn, per_turn], held
        assert Counter(ComparisonLease.objects.values_list("comparison_id", flat=True)) == held
