from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from refinement.models import HistoryEntry, Plan, Step
from tests.refinement.learning_store.helpers import (
    GLOBAL_SKILL,
    filed_run,
    learn,
    learning_step,
    make_step,
    report_run,
    skill_edit,
)

if TYPE_CHECKING:
    from tests.harness import Actor


def test_it_counts_runs_of_the_same_description(agent: Actor) -> None:
    report_run(agent, "login", "Log in to the portal")
    body = report_run(agent, "login", "  Log in to the portal\n").json()

    assert body["step"]["description_hash_runs"] == 2
    expected = hashlib.sha256(b"Log in to the portal").hexdigest()
    assert body["step"]["last_description_hash"] == expected


def test_it_restarts_the_count_when_the_description_is_edited(agent: Actor) -> None:
    report_run(agent, "login", "Log in to the portal")
    report_run(agent, "login", "Log in to the portal")
    body = report_run(agent, "login", "Log in with SSO").json()

    assert body["step"]["description_hash_runs"] == 1


def test_it_records_a_read_steps_run_but_files_no_plan(agent: Actor) -> None:
    response = report_run(agent, "login", "Log in", [skill_edit("# Skill\n")])

    assert response.status_code == 200
    assert response.json()["plan_id"] == ""
    assert response.json()["reason"] == "step login has learnings_access 'read'"
    assert not Plan.objects.exists()
    assert HistoryEntry.objects.filter(kind="run").count() == 1


def test_it_files_no_plan_for_a_locked_step_and_says_why(agent: Actor, boss: Actor) -> None:
    learning_step(boss)
    make_step(boss, "login", lock_learnings=True, review_notes="runbook is final")

    response = report_run(agent, "login", "Log in", [skill_edit("# Skill\n")])

    assert response.status_code == 200
    assert response.json()["reason"] == "step login is locked: runbook is final"
    assert not Plan.objects.exists()


def test_a_run_never_sets_or_clears_the_lock(agent: Actor, boss: Actor) -> None:
    learning_step(boss, "login")
    learning_step(boss, "search")
    make_step(boss, "login", lock_learnings=True, review_notes="runbook is final")
    for _ in range(5):
        report_run(agent, "login", "Log in", [skill_edit("# Skill\n")])
        report_run(agent, "search", "Search", [skill_edit("# Skill\n")])

    assert Step.objects.get(step_id="login").lock_learnings is True
    assert Step.objects.get(step_id="search").lock_learnings is False


def test_it_refuses_an_edit_that_is_not_a_skill_file(agent: Actor, boss: Actor) -> None:
    learning_step(boss)
    weight = {
        "target": "router_weight",
        "op": "update",
        "path": "router.weights.x",
        "old_value": 0.5,
        "new_value": 0.6,
    }

    response = report_run(agent, "login", "Log in", [skill_edit("# Skill\n"), weight])

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["edits", 1, "target"]
    assert not Step.objects.filter(step_id="login", runs_total__gt=0).exists()


def test_an_annotator_cannot_report_runs(ann: Actor) -> None:
    assert report_run(ann, "login", "Log in").status_code == 403


def test_a_filed_edit_is_reviewable_approvable_and_readable_once_applied(
    agent: Actor, boss: Actor, rev: Actor
) -> None:
    filed = filed_run(agent, boss)
    proposal = filed["proposals"][0]
    assert filed["plan_id"] and proposal["step_id"] == "login"

    review = learn(agent, "review", proposal={k: proposal[k] for k in WIRE_KEYS})
    assert review["approved"] is True, review

    plans = rev.client.get("/api/plans/?status=ready").json()
    assert [p["plan_id"] for p in plans] == [filed["plan_id"]]
    assert plans[0]["proposals"][0]["reviews"][0]["kind"] == "auto"

    pid = proposal["proposal_id"]
    assert rev.rest("post", f"/api/proposals/{pid}/approve/", {"note": "good"}).status_code == 200
    applied = rev.rest("post", f"/api/proposals/{pid}/apply/").json()
    assert applied["applied_edits"] == 1, applied

    text = rev.client.get(f"/api/skills/{GLOBAL_SKILL}?step=login").json()["text"]
    assert text == "# Skill\nUse SSO.\n"


WIRE_KEYS = ("target", "op", "path", "old_value", "new_value", "proposal_id", "plan_id", "step_id")
