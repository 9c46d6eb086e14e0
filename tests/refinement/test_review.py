"""learn/refinement/review: the risk floor of docs/contract.md, what refuses approval, and strict
input."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import apply_req, file_proposal, review_req, rollback_req, weight_proposal
from tests.factories import StepFactory, StoreValueFactory
from tests.harness import Actor, Send, http_send, ok, refused
from tests.refinement.helpers import calls

REF = "learnings/_global/references/alpha.md"


def review(transport: Send, actor: Actor, proposal: dict[str, Any]) -> dict[str, Any]:
    body = ok(transport(actor, review_req(proposal)))
    assert body["type"] == "learn/refinement/review/resp"
    return body


@pytest.mark.parametrize(
    ("new", "risk"), [(0.55, "low"), (0.6, "low"), (0.7, "medium"), (1.0, "high"), (0.0, "high")]
)
def test_weight_change_risk(transport: Send, agent: Actor, new: float, risk: str) -> None:
    body = review(transport, agent, weight_proposal("alpha", 0.5, new))
    assert body["risk_level"] == risk
    assert body["approved"] is True


@pytest.mark.parametrize(
    ("old", "new", "risk"),
    [
        pytest.param(0.5, 0.8, "medium"),
        pytest.param(0.3, 0.4, "low"),
    ],
)
def test_a_change_of_exactly_the_limit_is_not_over_it(
    agent: Actor, old: float, new: float, risk: str
) -> None:

    StoreValueFactory.create(component="alpha", value=old)
    body = review(http_send, agent, weight_proposal("alpha", old, new))
    assert body["risk_level"] == risk


def test_deleting_a_file_is_high(transport: Send, agent: Actor) -> None:
    created = ok(transport(agent, apply_req(file_proposal(REF, None, "# alpha\n"))))
    assert created["applied_edits"] == 1
    body = review(transport, agent, file_proposal(REF, "# alpha\n", None))
    assert body["risk_level"] == "high"
    assert body["approved"] is True
    assert any("deletes" in r for r in body["reasons"])


@pytest.mark.parametrize(
    "path", ["learnings/_global/scripts/tidy.sh", "learnings/_global/scripts/x.py"]
)
def test_global_scripts_are_code_and_high(transport: Send, agent: Actor, path: str) -> None:
    body = review(transport, agent, file_proposal(path, None, "echo hi\n"))
    assert body["risk_level"] == "high"
    assert any("code" in r for r in body["reasons"])


def test_a_steps_main_py_is_code_and_high(transport: Send, agent: Actor) -> None:
    body = review(transport, agent, file_proposal("learnings/s1/main.py", None, "print(1)\n"))
    assert body["risk_level"] == "high"


@pytest.mark.parametrize(("lines", "risk"), [(100, "low"), (101, "medium")])
def test_a_skill_index_over_100_lines_is_medium(
    transport: Send, agent: Actor, lines: int, risk: str
) -> None:
    text = "\n".join(f"- rule {i}" for i in range(lines))
    body = review(transport, agent, file_proposal("learnings/_global/SKILL.md", None, text))
    assert body["risk_level"] == risk
    assert body["approved"] is True


def test_a_path_rolled_back_this_week_is_at_least_medium(transport: Send, agent: Actor) -> None:
    applied = ok(transport(agent, apply_req(weight_proposal("alpha", 0.5, 0.55))))
    ok(transport(agent, rollback_req(applied["refinement_id"])))
    body = review(transport, agent, weight_proposal("alpha", 0.5, 0.55))
    assert body["risk_level"] == "medium"
    assert any("rolled back" in r for r in body["reasons"])


@pytest.mark.parametrize(
    ("field", "value"),
    [("lock_learnings", True), ("learnings_access", "none"), ("learning_objective", "be brief")],
)
def test_step_config_is_always_high_and_needs_a_person(
    transport: Send, agent: Actor, field: str, value: Any
) -> None:
    default = {"lock_learnings": False, "learnings_access": "read", "learning_objective": ""}
    proposal = {
        "target": "step_config",
        "op": "update",
        "path": f"steps.s1.{field}",
        "old_value": default[field],
        "new_value": value,
    }
    body = review(transport, agent, proposal)
    assert body["risk_level"] == "high"
    assert any("person" in r or "reviewer" in r for r in body["reasons"])


def test_a_stale_old_value_is_not_approved(transport: Send, agent: Actor) -> None:
    body = review(transport, agent, weight_proposal("alpha", 0.4, 0.45))
    assert body["approved"] is False
    assert any("expected 0.4, found 0.5" in r for r in body["reasons"]), body["reasons"]


def test_writing_into_a_read_step_is_not_approved(transport: Send, agent: Actor) -> None:
    body = review(transport, agent, file_proposal("learnings/s1/SKILL.md", None, "# s1\n"))
    assert body["approved"] is False
    assert any("learnings_access 'read'" in r for r in body["reasons"]), body["reasons"]


def test_writing_into_a_locked_step_is_not_approved(transport: Send, agent: Actor) -> None:
    StepFactory.create(
        step_id="s1",
        learning_objective="learn the format",
        lock_learnings=True,
        review_notes="frozen for the audit",
    )
    body = review(transport, agent, file_proposal("learnings/s1/SKILL.md", None, "# s1\n"))
    assert body["approved"] is False
    assert any("lock_learnings" in r and "audit" in r for r in body["reasons"]), body["reasons"]


def test_writing_into_an_open_step_is_approved(transport: Send, agent: Actor) -> None:
    StepFactory.create(step_id="s1")
    body = review(transport, agent, file_proposal("learnings/s1/SKILL.md", None, "# s1\n"))
    assert body["approved"] is True
    assert body["risk_level"] == "low"


def test_thin_evidence_adjusts_confidence(transport: Send, agent: Actor) -> None:
    calls(agent, "alpha", 3, reward=1.0)
    body = review(transport, agent, weight_proposal("alpha", 0.5, 0.55))
    assert body["confidence_adjusted"] is True
    assert any("thin evidence" in r for r in body["reasons"])


def test_rich_evidence_keeps_confidence(transport: Send, agent: Actor) -> None:
    calls(agent, "alpha", 25, reward=1.0)
    body = review(transport, agent, weight_proposal("alpha", 0.5, 0.55))
    assert body["confidence_adjusted"] is False
    assert body["reasons"] == []


@pytest.mark.parametrize(
    ("proposal", "loc"),
    [
        (weight_proposal("alpha", 0.5, 0.6) | {"target": "router"}, ["proposal", "target"]),
        (file_proposal("../x", None, "text"), ["proposal", "path"]),
        (file_proposal("learnings/../x/SKILL.md", None, "text"), ["proposal", "path"]),
        (file_proposal("learnings/_global/other.md", None, "text"), ["proposal", "path"]),
        (weight_proposal("alpha", 0.5, 1.5), ["proposal", "new_value"]),
        (weight_proposal("alpha", 0.5, -0.1), ["proposal", "new_value"]),
        (weight_proposal("alpha", 0.5, True), ["proposal", "new_value"]),
        (weight_proposal("alpha", True, 0.6), ["proposal", "old_value"]),
        (weight_proposal("alpha", 0.5, "0.6"), ["proposal", "new_value"]),
        (weight_proposal("alpha", 0.5, 0.6) | {"op": "delete"}, ["proposal", "op"]),
    ],
)
def test_invalid_proposals_are_refused_with_the_location(
    transport: Send, agent: Actor, proposal: dict[str, Any], loc: list[str]
) -> None:
    body = refused(transport(agent, review_req(proposal)), 400, "invalid")
    locs = [d["loc"] for d in body["details"]]
    assert any(found[: len(loc)] == loc for found in locs), locs


def test_an_annotator_may_not_review(transport: Send, ann: Actor) -> None:
    refused(transport(ann, review_req(weight_proposal("alpha", 0.5, 0.55))), 403, "forbidden")
