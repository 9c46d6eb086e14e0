"""learn/adapt: every strategy, the allow-list, the trust region, and the plan for the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import call_command

from core.timing import recording
from refinement.models import HistoryEntry, Plan, ProposalStatus
from refinement.paths import weight_path
from refinement.services.register import proposal_wire
from tests.builders import adapt_req, apply_req, rollback_req
from tests.factories import StoreValueFactory
from tests.harness import Actor, Send, default_pk, http_send, ok, refused
from tests.refinement.helpers import calls, two_arms, weight, weighted

if TYPE_CHECKING:
    from pytest_django import Settings

THOMPSON = "refinement.strategies.thompson.thompson"


@pytest.mark.parametrize(
    "strategy",
    [
        "ppo",
        "ucb1",
        "epsilon_greedy",
        "softmax",
    ],
)
def test_every_builtin_strategy_updates_records_and_names_itself(
    transport: Send, agent: Actor, strategy: str
) -> None:
    two_arms(agent)
    body = ok(transport(agent, adapt_req(strategy)))
    assert body["type"] == "learn/adapt/resp"
    assert strategy in body["message"].lower()
    names = {record["component_name"] for record in body["updated"]}
    assert names == {"alpha", "beta"}
    alpha = next(r for r in body["updated"] if r["component_name"] == "alpha")
    assert alpha["calls_total"] == 30
    assert alpha["calls_success"] == 30
    assert weighted("alpha") > 0.5 > weighted("beta")


def test_ppo_moves_weights_recorded_under_weights_in_force(transport: Send, agent: Actor) -> None:
    for name in ("alpha", "beta"):
        StoreValueFactory.create(component=name, value=0.5)
    two_arms(agent)
    body = ok(transport(agent, adapt_req("ppo")))
    assert "ppo" in body["message"].lower()
    assert {r["component_name"] for r in body["updated"]} == {"alpha", "beta"}
    assert {r["weight"] for r in body["updated"]} == {weight("alpha"), weight("beta")}
    assert 0.5 < weighted("alpha") <= 0.6 + 1e-9
    assert 0.4 - 1e-9 <= weighted("beta") < 0.5


def test_custom_is_not_allowed_without_a_custom_strategy(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_CUSTOM_STRATEGY = ""
    two_arms(agent)
    refused(transport(agent, adapt_req("custom")), 403, "strategy_not_allowed")
    assert weight("alpha") is None


def test_custom_works_when_the_host_names_one(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_CUSTOM_STRATEGY = THOMPSON
    two_arms(agent)
    body = ok(transport(agent, adapt_req("custom")))
    assert "custom" in body["message"].lower()
    assert {r["component_name"] for r in body["updated"]} == {"alpha", "beta"}


@pytest.mark.parametrize("strategy", ["ucb1", "sarsa"])
def test_a_strategy_the_host_does_not_list_is_not_allowed(
    transport: Send, agent: Actor, settings: Settings, strategy: str
) -> None:
    settings.LEARNPORTAL_ADAPT_STRATEGIES = ["ppo", "softmax"]
    two_arms(agent)
    body = refused(transport(agent, adapt_req(strategy)), 403, "strategy_not_allowed")
    assert body["details"][0]["loc"] == ["strategy"]
    assert weight("alpha") is None


@pytest.mark.parametrize(("risk", "limit"), [("low", 0.1), ("medium", 0.3)])
def test_no_weight_moves_further_than_the_auto_apply_risk_allows(
    agent: Actor, settings: Settings, risk: str, limit: float
) -> None:
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = risk
    two_arms(agent)
    before = {"alpha": 0.5, "beta": 0.5}
    for _ in range(3):
        ok(http_send(agent, adapt_req("epsilon_greedy")))
        after = {name: weighted(name) for name in before}
        for name in before:
            assert abs(after[name] - before[name]) <= limit + 1e-9
        before = after
    assert after["alpha"] > 0.5


def test_at_risk_none_nothing_moves_and_the_whole_way_waits(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "none"
    two_arms(agent)
    body = ok(transport(agent, adapt_req("epsilon_greedy")))
    assert body["updated"] == []
    assert weight("alpha") is None and weight("beta") is None
    plan = Plan.objects.filter(origin="adapt").latest("created")
    waiting: dict[str, tuple[Any, Any]] = {
        p.path: (p.old_value, p.new_value) for p in plan.proposals.all()
    }
    assert waiting[weight_path("alpha")][0] == 0.5
    assert waiting[weight_path("alpha")][1] > 0.9


def test_a_new_component_starts_at_one_half(transport: Send, agent: Actor) -> None:
    two_arms(agent)
    ok(transport(agent, adapt_req("epsilon_greedy")))
    entry = HistoryEntry.objects.get(kind="adapt")
    before = {d["component"]: d["before"] for d in entry.diff}
    assert before == {"alpha": 0.5, "beta": 0.5}
    assert weight("alpha") == pytest.approx(0.6)
    assert weight("beta") == pytest.approx(0.4)


def test_repeated_adapts_converge_to_the_target_without_a_person(agent: Actor) -> None:
    two_arms(agent)
    targets = []
    for _ in range(8):
        ok(http_send(agent, adapt_req("epsilon_greedy")))
        entry = HistoryEntry.objects.filter(kind="adapt").latest("ts")
        targets += [d["target"] for d in entry.diff if d["component"] == "alpha"]
    target = targets[0]
    assert 0.9 < target <= 1.0
    assert weight("alpha") == pytest.approx(target, abs=1e-6)
    # Settled: the last adapt has nothing left to move, and files nothing for a reviewer.
    last = Plan.objects.filter(origin="adapt").latest("created")
    assert last.status == "empty"
    assert not last.proposals.exists()


def test_the_rest_of_the_way_is_a_plan_a_reviewer_may_apply_at_once(
    transport: Send, agent: Actor, rev: Actor
) -> None:
    two_arms(agent)
    ok(transport(agent, adapt_req("epsilon_greedy", "alpha")))
    assert weight("alpha") == pytest.approx(0.6)
    plan = Plan.objects.filter(origin="adapt").latest("created")
    assert plan.requested_by == "token:agent-1"
    rest = plan.proposals.get(path=weight_path("alpha"), status=ProposalStatus.PENDING)
    assert rest.old_value == pytest.approx(0.6)
    target = rest.new_value
    assert target is not None and target > 0.9
    body = ok(transport(rev, apply_req(proposal_wire(rest))))
    assert body["applied_edits"] == 1
    assert body["rollback_available"] is True
    assert weight("alpha") == pytest.approx(target)


def test_an_agent_may_not_take_the_rest_of_the_way_by_itself(transport: Send, agent: Actor) -> None:
    two_arms(agent)
    ok(transport(agent, adapt_req("epsilon_greedy", "alpha")))
    rest = (
        Plan.objects.filter(origin="adapt")
        .latest("created")
        .proposals.get(status=ProposalStatus.PENDING)
    )
    body = ok(transport(agent, apply_req(proposal_wire(rest))))
    assert body["applied_edits"] == 0
    assert "approval" in body["error"]
    assert weight("alpha") == pytest.approx(0.6)


def test_history_has_the_adapt_with_before_after_and_target(transport: Send, agent: Actor) -> None:
    two_arms(agent)
    ok(transport(agent, adapt_req("ucb1")))
    entry = HistoryEntry.objects.get(kind="adapt")
    assert entry.actor == "token:agent-1"
    diff = {d["component"]: d for d in entry.diff}
    assert set(diff) == {"alpha", "beta"}
    assert diff["alpha"]["before"] == 0.5
    assert diff["alpha"]["after"] == pytest.approx(weight("alpha"))
    assert diff["alpha"]["target"] > diff["alpha"]["after"]
    assert diff["beta"]["target"] < diff["beta"]["after"]


def test_adapt_of_an_unknown_component_is_not_found(transport: Send, agent: Actor) -> None:
    two_arms(agent)
    refused(transport(agent, adapt_req("ppo", "nobody")), 404, "not_found")
    assert weight("alpha") is None


def test_an_annotator_may_not_adapt(transport: Send, agent: Actor, ann: Actor) -> None:
    calls(agent, "alpha", 5, reward=1.0)
    refused(transport(ann, adapt_req("ppo")), 403, "forbidden")
    assert weight("alpha") is None


def test_one_adapt_is_one_refinement_that_rolls_back_every_weight_it_moved(
    transport: Send, agent: Actor
) -> None:
    two_arms(agent)
    ok(transport(agent, adapt_req("ucb1")))
    moved = {"alpha": weighted("alpha"), "beta": weighted("beta")}
    assert moved["alpha"] > 0.5 > moved["beta"]
    apply = HistoryEntry.objects.get(kind="apply")
    assert {edit["path"] for edit in apply.diff} == {weight_path("alpha"), weight_path("beta")}
    ok(transport(agent, rollback_req(apply.refinement_id)))
    assert weight("alpha") == pytest.approx(0.5)
    assert weight("beta") == pytest.approx(0.5)


def test_a_weight_rolled_back_lately_waits_for_a_reviewer_instead_of_stepping(
    transport: Send, agent: Actor
) -> None:
    two_arms(agent)
    ok(transport(agent, adapt_req("ucb1", "alpha")))
    first = HistoryEntry.objects.get(kind="apply")
    ok(transport(agent, rollback_req(first.refinement_id)))
    body = ok(transport(agent, adapt_req("ucb1", "alpha")))
    assert body["updated"] == []
    assert weight("alpha") == pytest.approx(0.5)
    rest = Plan.objects.filter(origin="adapt").latest("created").proposals.get()
    assert rest.status == ProposalStatus.PENDING
    assert rest.old_value == pytest.approx(0.5)
    assert rest.new_value is not None and rest.new_value > 0.5


def test_adapt_learns_from_the_newest_experiences_only(agent: Actor, settings: Settings) -> None:
    from refinement.adapt import targets_for

    settings.LEARNPORTAL_ADAPT_WINDOW = 40
    calls(agent, "alpha", 20, reward=-0.9, success=False)  # long ago alpha was bad
    calls(agent, "beta", 20, reward=0.9, success=True)  # and beta good
    calls(agent, "beta", 20, reward=-0.9, success=False)  # lately it is the other way round
    calls(agent, "alpha", 20, reward=0.9, success=True)

    recent = targets_for(default_pk(), "epsilon_greedy", ["alpha", "beta"])
    assert recent["alpha"] > 0.9 > 0.1 > recent["beta"]
    settings.LEARNPORTAL_ADAPT_WINDOW = 1_000_000
    call_command("rebuild_rewards")  # what a change of the window asks for
    whole = targets_for(default_pk(), "epsilon_greedy", ["alpha", "beta"])
    assert whole["alpha"] == pytest.approx(whole["beta"])


def test_an_adapt_names_its_read_strategy_and_apply_stages_when_recorded(agent: Actor) -> None:
    two_arms(agent)
    with recording() as times:
        ok(http_send(agent, adapt_req("ucb1")))

    assert {"read: the components", "read: the reward sums (SQL + fetch)", "strategy"} <= set(
        times.calls
    )
    assert times.calls["apply: `proposals_file` (proposals + reviews)"] >= 1
    assert "read: the replay window (SQL + fetch)" not in times.calls  # ucb1 reads sums only
