from __future__ import annotations

from typing import TYPE_CHECKING

from refinement.models import HistoryEntry, Refinement, Revision
from tests.refinement.learning_store.helpers import make_step

if TYPE_CHECKING:
    from tests.harness import Actor


def test_it_shows_the_defaults_for_a_step_never_configured(ann: Actor) -> None:
    body = ann.client.get("/api/steps/checkout/").json()

    assert body["learnings_access"] == "read"
    assert body["learning_objective"] == ""
    assert body["lock_learnings"] is False
    assert body["description_hash_runs"] == 0


def test_it_lets_only_an_admin_change_a_step(rev: Actor, agent: Actor) -> None:
    for actor in (rev, agent):
        response = actor.rest("put", "/api/steps/checkout/", {"learnings_access": "none"})
        assert response.status_code == 403
        assert response.json()["code"] == "forbidden"


def test_it_refuses_read_write_without_a_learning_objective(boss: Actor) -> None:
    response = boss.rest("put", "/api/steps/checkout/", {"learnings_access": "read-write"})

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["learning_objective"]


def test_it_refuses_an_unknown_learnings_access(boss: Actor) -> None:
    response = boss.rest("put", "/api/steps/checkout/", {"learnings_access": "write"})

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["learnings_access"]


def test_it_refuses_a_lock_without_review_notes(boss: Actor) -> None:
    response = boss.rest("put", "/api/steps/checkout/", {"lock_learnings": True})

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["review_notes"]


def test_it_locks_a_step_with_review_notes_and_records_the_change(boss: Actor) -> None:
    body = make_step(boss, "checkout", lock_learnings=True, review_notes="skill is stable")

    assert body["lock_learnings"] is True
    assert body["review_notes"] == "skill is stable"
    entry = HistoryEntry.objects.get(kind="apply")
    assert entry.actor == "user:boss"
    assert entry.refinement_id
    assert {
        "path": "steps.checkout.lock_learnings",
        "target": "step_config",
        "before": False,
        "after": True,
    } in entry.diff
    assert "skill is stable" in entry.message


def test_a_step_change_over_put_is_a_refinement_that_rolls_back(boss: Actor) -> None:
    make_step(boss, "checkout", learnings_access="read-write", learning_objective="auth flows")
    make_step(boss, "checkout", lock_learnings=True, review_notes="skill is stable")
    lock = Refinement.objects.get(edits__0__path="steps.checkout.lock_learnings")
    assert lock.status == "applied"
    assert Revision.objects.filter(refinement=lock, path="steps.checkout.lock_learnings").exists()

    response = boss.rest("post", f"/api/refinements/{lock.refinement_id}/rollback/", {})

    assert response.status_code == 200, response.json()
    assert response.json()["rolled_back"] is True
    step = boss.client.get("/api/steps/checkout/").json()
    assert (step["lock_learnings"], step["learnings_access"]) == (False, "read-write")


def test_rolling_back_a_first_setting_restores_the_defaults_together(boss: Actor) -> None:
    """Access and objective set in one edit roll back in one refinement: back to `read` with no
    objective, which is allowed although each alone (`read-write` without one) is not."""
    make_step(boss, "login", learnings_access="read-write", learning_objective="auth flows")
    first = Refinement.objects.get()
    assert len(first.edits) == 2

    response = boss.rest("post", f"/api/refinements/{first.refinement_id}/rollback/", {})

    assert response.status_code == 200, response.json()
    step = boss.client.get("/api/steps/login/").json()
    assert (step["learnings_access"], step["learning_objective"]) == ("read", "")


def test_an_unchanged_step_setting_files_no_refinement(boss: Actor) -> None:
    make_step(boss, "checkout", learnings_access="none")
    make_step(boss, "checkout", learnings_access="none")

    assert Refinement.objects.count() == 1


def test_it_refuses_to_set_the_runs_metadata(boss: Actor) -> None:
    response = boss.rest("put", "/api/steps/checkout/", {"description_hash_runs": 9})

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["description_hash_runs"]
    assert boss.client.get("/api/steps/checkout/").json()["description_hash_runs"] == 0


def test_it_keeps_the_global_skill_objective_for_admins_to_set(boss: Actor, rev: Actor) -> None:
    body = {"global_skill_objective": "selectors and auth flows of the CRM"}

    assert rev.rest("put", "/api/steps/", body).status_code == 403
    assert boss.rest("put", "/api/steps/", body).status_code == 200
    assert (
        rev.client.get("/api/steps/").json()["global_skill_objective"]
        == body["global_skill_objective"]
    )
