"""The trust region holds per time window (issue 20, item 10): machines' applies move one weight
in all no further within LEARNPORTAL_TRUST_WINDOW_SECONDS than the auto-apply risk's step; and
(issue 21, item 6) machines, adapts included, change one path at most
LEARNPORTAL_PATH_CHANGES_MAX times within LEARNPORTAL_PATH_CHANGES_SECONDS."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from refinement.models import Proposal, ProposalStatus
from refinement.paths import weight_path
from tests.builders import adapt_req, apply_req, weight_proposal
from tests.refinement import helpers

if TYPE_CHECKING:
    from tests.harness import Actor


def apply(actor: Actor, old: float, new: float) -> dict[str, Any]:
    response = actor.learn(apply_req(weight_proposal("alpha", old, new)))
    assert response.status_code == 200, response.json()
    body: dict[str, Any] = response.json()
    return body


def test_low_risk_applies_in_a_row_stop_at_the_step_a_window_allows(
    weighted: None, agent: Actor, clock: Any
) -> None:
    assert apply(agent, 0.5, 0.6)["applied_edits"] == 1  # 0.1: the whole step at `low`
    queued = apply(agent, 0.6, 0.7)
    assert queued["applied_edits"] == 0 and queued["refinement_id"]
    assert "awaits approval" in queued["error"] and "last 3600 seconds" in queued["error"]
    assert helpers.weighted("alpha") == 0.6


def test_small_applies_add_up_against_the_window(weighted: None, agent: Actor, clock: Any) -> None:
    for old, new in ((0.5, 0.55), (0.55, 0.6)):
        assert apply(agent, old, new)["applied_edits"] == 1
    assert apply(agent, 0.6, 0.62)["applied_edits"] == 0
    assert helpers.weighted("alpha") == 0.6


def test_once_the_window_has_passed_a_machine_may_move_the_weight_again(
    weighted: None, agent: Actor, clock: Any, settings: Any
) -> None:
    settings.LEARNPORTAL_TRUST_WINDOW_SECONDS = 60
    assert apply(agent, 0.5, 0.6)["applied_edits"] == 1
    assert apply(agent, 0.6, 0.7)["applied_edits"] == 0
    clock.shift(timedelta(seconds=61))
    assert apply(agent, 0.6, 0.7)["applied_edits"] == 1
    assert helpers.weighted("alpha") == 0.7


def test_a_reviewers_apply_is_the_human_approval_and_is_not_held(
    weighted: None, agent: Actor, rev: Actor, clock: Any
) -> None:
    assert apply(agent, 0.5, 0.6)["applied_edits"] == 1
    assert apply(rev, 0.6, 0.7)["applied_edits"] == 1
    assert helpers.weighted("alpha") == 0.7


def test_a_path_machines_changed_n_times_in_a_window_needs_a_person_for_the_next_apply(
    weighted: None, agent: Actor, rev: Actor, clock: Any, settings: Any
) -> None:
    settings.LEARNPORTAL_PATH_CHANGES_MAX = 3
    for old, new in ((0.5, 0.52), (0.52, 0.54), (0.54, 0.56)):  # well within the distance
        assert apply(agent, old, new)["applied_edits"] == 1
    queued = apply(agent, 0.56, 0.57)
    assert queued["applied_edits"] == 0 and queued["refinement_id"]
    assert "changed router.weights.alpha 3 times in the last 60 seconds" in queued["error"]
    assert helpers.weighted("alpha") == 0.56
    assert apply(rev, 0.56, 0.57)["applied_edits"] == 1  # a person is not held
    clock.shift(timedelta(seconds=61))
    assert apply(agent, 0.57, 0.58)["applied_edits"] == 1


def test_adapts_count_against_the_changes_of_a_path_and_resume_after_the_window(
    agent: Actor, clock: Any, settings: Any
) -> None:
    settings.LEARNPORTAL_PATH_CHANGES_MAX = 2
    helpers.two_arms(agent)
    for _ in range(3):
        assert agent.learn(adapt_req("epsilon_greedy")).status_code == 200
    assert helpers.weighted("alpha") == pytest.approx(0.7)  # two steps, the third held
    waiting = Proposal.objects.filter(path=weight_path("alpha"), status=ProposalStatus.PENDING)
    assert [p.new_value for p in waiting] == [pytest.approx(1.0)]
    assert "changed router.weights.alpha 2 times" in waiting[0].reason
    clock.shift(timedelta(seconds=61))
    assert agent.learn(adapt_req("epsilon_greedy")).status_code == 200
    assert helpers.weighted("alpha") == pytest.approx(0.8)
