"""The trust region holds per time window (issue 20, item 10): machines' applies move one weight
in all no further within LEARNPORTAL_TRUST_WINDOW_SECONDS than the auto-apply risk's step."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from tests.builders import apply_req, weight_proposal
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
