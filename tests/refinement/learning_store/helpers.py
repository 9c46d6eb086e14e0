"""Small helpers for the learning store's REST tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.builders import next_id

if TYPE_CHECKING:
    from tests.harness import Actor

GLOBAL_SKILL = "learnings/_global/SKILL.md"


def learn(actor: Actor, kind: str, **fields: Any) -> dict[str, Any]:
    response = actor.learn({"type": f"learn/refinement/{kind}/req", "id": next_id("lr"), **fields})
    return response.json()


def skill_edit(text: str, *, path: str = GLOBAL_SKILL, old: str | None = None) -> dict[str, Any]:
    return {
        "target": "skill_file",
        "op": "create" if old is None else "update",
        "path": path,
        "old_value": old,
        "new_value": text,
    }


def make_step(boss: Actor, step_id: str, **fields: Any) -> dict[str, Any]:
    response = boss.rest("put", f"/api/steps/{step_id}/", fields)
    assert response.status_code == 200, response.json()
    return response.json()


def report_run(actor: Actor, step_id: str, description: str, edits: list[Any] | None = None) -> Any:
    body = {"description": description, "edits": edits or []}
    return actor.rest("post", f"/api/steps/{step_id}/runs/", body)


def learning_step(boss: Actor, step_id: str = "login") -> None:
    make_step(boss, step_id, learnings_access="read-write", learning_objective="auth flows")


def filed_run(agent: Actor, boss: Actor, text: str = "# Skill\nUse SSO.\n") -> dict[str, Any]:
    """A read-write step's run whose one edit creates the global SKILL.md."""
    learning_step(boss)
    response = report_run(agent, "login", "Log in to the portal", [skill_edit(text)])
    assert response.status_code == 201, response.json()
    return response.json()
