from __future__ import annotations

from typing import TYPE_CHECKING

from refinement.models import HistoryEntry
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
    entry = HistoryEntry.objects.get(kind="step")
    assert entry.actor == "user:boss"
    assert {"path": "steps.checkout.lock_learnings", "before": False, "after": True} in entry.diff


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
