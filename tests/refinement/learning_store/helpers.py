"""Small helpers for the learning store's REST tests."""

from __future__ import annotations

import itertools
from typing import Any

import orjson

from tests.conftest import Actor

_ids = itertools.count(1)
GLOBAL_SKILL = "learnings/_global/SKILL.md"


def send(actor: Actor, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    call = getattr(actor.client, method)
    if body is None:
        return call(url)
    return call(url, data=orjson.dumps(body), content_type="application/json")


def learn(actor: Actor, kind: str, **fields: Any) -> dict[str, Any]:
    response = actor.learn(
        {"type": f"learn/refinement/{kind}/req", "id": f"lr-{next(_ids)}", **fields}
    )
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
    response = send(boss, "put", f"/api/steps/{step_id}/", fields)
    assert response.status_code == 200, response.json()
    return response.json()


def report_run(actor: Actor, step_id: str, description: str, edits: list | None = None) -> Any:
    body = {"description": description, "edits": edits or []}
    return send(actor, "post", f"/api/steps/{step_id}/runs/", body)


def learning_step(boss: Actor, step_id: str = "login") -> None:
    make_step(boss, step_id, learnings_access="read-write", learning_objective="auth flows")


def filed_run(agent: Actor, boss: Actor, text: str = "# Skill\nUse SSO.\n") -> dict[str, Any]:
    """A read-write step's run whose one edit creates the global SKILL.md."""
    learning_step(boss)
    response = report_run(agent, "login", "Log in to the portal", [skill_edit(text)])
    assert response.status_code == 201, response.json()
    return response.json()
