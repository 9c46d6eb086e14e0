"""A portal with some of everything, so that schemathesis meets real objects as well as missing ones."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.core import signals
from django.db import close_old_connections

from learnportal.demo import DEMO_AGENT, seed_demo
from refinement.models import Plan, Proposal

if TYPE_CHECKING:
    from tests.harness import Actor


def _send(actor: Actor, method: str, url: str, body: dict[str, Any]) -> Any:
    response = actor.rest(method, url, body)
    assert response.status_code < 300, response.json()
    return response.json()


@pytest.fixture
def world(boss: Actor, agent: Actor) -> Actor:
    """Demo turns, feedback, experiences and a plan; a learning step with a filed run; one
    applied refinement. Answers the admin who tests it."""
    seed_demo()
    _send(
        boss,
        "put",
        "/api/steps/login/",
        {"learnings_access": "read-write", "learning_objective": "auth flows"},
    )
    edit = {
        "target": "skill_file",
        "op": "create",
        "path": "learnings/_global/SKILL.md",
        "old_value": None,
        "new_value": "# Skill\nUse SSO.\n",
    }
    run = _send(
        agent,
        "post",
        "/api/steps/login/runs/",
        {"description": "Log in", "edits": [edit]},
    )
    proposal_id = run["proposals"][0]["proposal_id"]
    _send(boss, "post", f"/api/proposals/{proposal_id}/approve/", {})
    _send(boss, "post", f"/api/proposals/{proposal_id}/apply/", {})
    assert Plan.objects.filter(requested_by=DEMO_AGENT.key).exists()
    assert Proposal.objects.exists()
    return boss


@pytest.fixture
def admin_token(world: Actor) -> Any:
    """The admin's token, for requests that run in-process inside the test's transaction.

    As Django's test client does, keep the request signals from closing the connection under
    them (the test client connects them again after each of its own requests, so this comes last).
    """
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield world.raw_token
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)
