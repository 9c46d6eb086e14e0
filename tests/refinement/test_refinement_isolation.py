"""Routing weights, the learning store and the refinement lifecycle are per project: each
project has its own weights, learnings files, steps and workflow, and its own plans, proposals,
refinements and history; a principal acting in one reads and changes only that project's, and
an id of another project's plan or refinement answers as one that does not exist
(docs/contract.md, "Teams: projects").

Two projects throughout: `default` (the `agent` fixture's token, the `rev` reviewer) and
`alpha`, with an agent and a reviewer of its own; both call a component named "search".
"""

from __future__ import annotations

from io import StringIO
from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import CommandError, call_command

from core.projects.services import project_add
from refinement.models import HistoryEntry, Plan, Refinement, StoreValue
from refinement.paths import weight_path
from tests.builders import (
    adapt_req,
    apply_req,
    file_proposal,
    history_req,
    rollback_req,
    weight_proposal,
)
from tests.harness import Actor, http_send, human_actor, ok, refused, token_actor
from tests.refinement.helpers import calls

if TYPE_CHECKING:
    from pathlib import Path

    from django.test import Client

pytestmark = pytest.mark.django_db

SKILL = "learnings/_global/SKILL.md"


@pytest.fixture
def alpha() -> dict[str, Actor]:
    """Alpha's agent and reviewer, members of alpha alone."""
    project_add(slug="alpha", name="Alpha")
    return {
        "agent": token_actor("alpha-agent", "agent", project="alpha"),
        "rev": human_actor("alpha-rev", "reviewer", project="alpha"),
    }


def applied(actor: Actor, proposal: dict[str, Any]) -> str:
    """learn/refinement/apply of a proposal that applies at once: its refinement's id."""
    reply = ok(http_send(actor, apply_req(proposal)))
    assert reply["applied_edits"] == 1, reply
    refinement_id: str = reply["refinement_id"]
    return refinement_id


def routing(actor: Actor) -> dict[str, float]:
    response = actor.rest("get", "/api/routing/")
    assert response.status_code == 200, response.content
    weights: dict[str, float] = response.json()["weights"]
    return weights


def page(client: Client, url: str) -> tuple[int, str]:
    response = client.get(url)
    return response.status_code, response.content.decode()


def test_a_weight_applied_in_one_project_is_that_projects_alone(
    agent: Actor, alpha: dict[str, Actor]
) -> None:
    """Alpha's agent moves its search weight; default's search stays unweighted, and each
    project's routing lists its own."""
    applied(alpha["agent"], weight_proposal("search", 0.5, 0.55))

    assert routing(alpha["agent"]) == {"search": pytest.approx(0.55)}
    assert routing(agent) == {}
    # The same move in default starts from its own 0.5, not from alpha's 0.55.
    applied(agent, weight_proposal("search", 0.5, 0.45))
    assert routing(agent) == {"search": pytest.approx(0.45)}
    assert routing(alpha["agent"]) == {"search": pytest.approx(0.55)}
    assert sorted(StoreValue.objects.values_list("project__slug", "value")) == [
        ("alpha", 0.55),
        ("default", 0.45),
    ]


def test_an_adapt_moves_only_its_own_projects_weights(
    agent: Actor, alpha: dict[str, Actor]
) -> None:
    """Both projects call search and fetch; alpha's adapt weighs alpha's evidence and writes
    alpha's weights, and default's routing has none."""
    calls(alpha["agent"], "search", 30, reward=0.9, success=True)
    calls(alpha["agent"], "fetch", 30, reward=-0.8, success=False)
    calls(agent, "search", 30, reward=-0.8, success=False)
    calls(agent, "fetch", 30, reward=0.9, success=True)

    ok(http_send(alpha["agent"], adapt_req("epsilon_greedy")))

    moved = routing(alpha["agent"])
    assert moved["fetch"] < moved["search"]  # alpha's search is its better arm
    assert routing(agent) == {}
    ok(http_send(agent, adapt_req("epsilon_greedy")))
    mine = routing(agent)
    assert mine["search"] < mine["fetch"]  # default's own evidence, the other way round
    assert routing(alpha["agent"]) == moved


def test_another_projects_refinement_cannot_be_rolled_back_and_is_not_found(
    agent: Actor, alpha: dict[str, Actor], rev: Actor
) -> None:
    """A refinement id of alpha's, sent by default's agent or reviewer over learn/* and REST,
    answers not_found as an unknown one does, and alpha's weight stays."""
    refinement_id = applied(alpha["agent"], weight_proposal("search", 0.5, 0.55))

    unknown = refused(http_send(agent, rollback_req("ref-nothing")), 404, "not_found")
    theirs = refused(http_send(agent, rollback_req(refinement_id)), 404, "not_found")
    assert theirs["message"] == unknown["message"].replace("ref-nothing", refinement_id)
    response = rev.rest("post", f"/api/refinements/{refinement_id}/rollback/", {})
    assert response.status_code == 404, response.content
    assert routing(alpha["agent"]) == {"search": pytest.approx(0.55)}
    assert Refinement.objects.get(refinement_id=refinement_id).status == "applied"
    # Its own reviewer may.
    response = alpha["rev"].rest("post", f"/api/refinements/{refinement_id}/rollback/", {})
    assert response.status_code == 200, response.content
    assert routing(alpha["agent"]) == {"search": pytest.approx(0.5)}


def test_the_history_of_a_project_holds_only_its_own_entries(
    agent: Actor, alpha: dict[str, Actor], rev: Actor
) -> None:
    """learn/refinement/history, REST and the history page each list the project's entries."""
    mine = applied(agent, weight_proposal("search", 0.5, 0.45))
    theirs = applied(alpha["agent"], weight_proposal("search", 0.5, 0.55))

    def ids(entries: list[dict[str, Any]]) -> set[str]:
        return {e["refinement_id"] for e in entries if e["refinement_id"]}

    assert ids(ok(http_send(agent, history_req()))["entries"]) == {mine}
    assert ids(ok(http_send(alpha["agent"], history_req()))["entries"]) == {theirs}
    response = rev.rest("get", "/api/history/")
    assert response.status_code == 200, response.content
    assert ids(response.json()["entries"]) == {mine}
    status, html = page(rev.browser(), "/history/")
    assert status == 200
    assert mine in html
    assert theirs not in html
    assert set(HistoryEntry.objects.values_list("project__slug", flat=True)) == {
        "default",
        "alpha",
    }


def test_a_plan_of_another_project_is_not_found_on_its_page_and_over_rest(
    agent: Actor, alpha: dict[str, Actor], rev: Actor
) -> None:
    """Alpha's adapt files a plan for a reviewer; default's reviewer finds neither it in the
    plans list nor its page, and alpha's reviewer does."""
    calls(alpha["agent"], "search", 30, reward=0.9, success=True)
    calls(alpha["agent"], "fetch", 30, reward=-0.8, success=False)
    ok(http_send(alpha["agent"], adapt_req("epsilon_greedy")))
    plan = Plan.objects.get()
    assert plan.proposals.exists(), "the adapt left steps for a reviewer"

    response = rev.rest("get", "/api/plans/")
    assert response.status_code == 200, response.content
    assert response.json() == []
    assert rev.rest("get", f"/api/plans/{plan.plan_id}/").status_code == 404
    status, html = page(rev.browser(), "/plans/")
    assert status == 200
    assert plan.plan_id not in html
    assert page(rev.browser(), f"/plans/{plan.plan_id}/")[0] == 404
    assert alpha["rev"].rest("get", f"/api/plans/{plan.plan_id}/").status_code == 200
    status, html = page(alpha["rev"].browser(), "/plans/")
    assert plan.plan_id in html


def test_a_learnings_file_is_its_projects_and_others_read_none(
    agent: Actor, alpha: dict[str, Actor], rev: Actor, boss: Actor
) -> None:
    """A SKILL.md applied in alpha (by its reviewer) is alpha's: default lists no file, and
    reading it by path is not_found; default may write its own from nothing."""
    response = alpha["rev"].learn(apply_req(file_proposal(SKILL, None, "# Alpha\n")))
    assert response.status_code == 200, response.content

    listed = rev.rest("get", "/api/skills/")
    assert listed.status_code == 200, listed.content
    assert listed.json() == []
    assert rev.rest("get", f"/api/skills/{SKILL}").status_code == 404
    read = alpha["rev"].rest("get", f"/api/skills/{SKILL}")
    assert read.status_code == 200, read.content
    assert read.json()["text"] == "# Alpha\n"
    status, html = page(rev.browser(), "/skills/")
    assert status == 200
    assert "# Alpha" not in html and "Alpha</h1>" not in html
    # Default's own file starts from nothing (old_value null), not from alpha's text.
    response = rev.learn(apply_req(file_proposal(SKILL, None, "# Default\n")))
    assert response.status_code == 200, response.content
    assert rev.rest("get", f"/api/skills/{SKILL}").json()["text"] == "# Default\n"
    assert alpha["rev"].rest("get", f"/api/skills/{SKILL}").json()["text"] == "# Alpha\n"


def test_a_steps_settings_and_the_workflow_objective_are_each_projects_own(
    boss: Actor, alpha: dict[str, Actor]
) -> None:
    """A site admin acting in alpha (`?project=alpha`) sets step `plan`'s gates and the
    global objective there; default's step of the same id and its objective stay as they were."""
    response = boss.rest(
        "put",
        "/api/steps/plan/?project=alpha",
        {"learnings_access": "read-write", "learning_objective": "learn alpha's ways"},
    )
    assert response.status_code == 200, response.content
    response = boss.rest(
        "put", "/api/steps/?project=alpha", {"global_skill_objective": "alpha's objective"}
    )
    assert response.status_code == 200, response.content

    there = boss.rest("get", "/api/steps/plan/?project=alpha").json()
    here = boss.rest("get", "/api/steps/plan/").json()
    assert (there["learnings_access"], there["learning_objective"]) == (
        "read-write",
        "learn alpha's ways",
    )
    assert (here["learnings_access"], here["learning_objective"]) == ("read", "")
    assert boss.rest("get", "/api/steps/").json()["global_skill_objective"] == ""
    assert (
        boss.rest("get", "/api/steps/?project=alpha").json()["global_skill_objective"]
        == "alpha's objective"
    )


def test_the_same_weight_path_in_two_projects_is_two_rows_with_their_own_revisions(
    agent: Actor, alpha: dict[str, Actor]
) -> None:
    """A weight's path is unique within its project: each project's first change is version 1."""
    applied(agent, weight_proposal("search", 0.5, 0.45))
    applied(alpha["agent"], weight_proposal("search", 0.5, 0.55))

    rows = StoreValue.objects.filter(path=weight_path("search"))
    assert sorted(rows.values_list("project__slug", "version")) == [("alpha", 1), ("default", 1)]


def test_export_skills_writes_the_project_it_names_and_refuses_an_unknown_one(
    alpha: dict[str, Actor], tmp_path: Path
) -> None:
    """`export_skills --project alpha` writes alpha's SKILL.md; without it, default's (none);
    an unknown project is a CommandError naming the option, and nothing is written."""
    response = alpha["rev"].learn(apply_req(file_proposal(SKILL, None, "# Alpha\n")))
    assert response.status_code == 200, response.content

    call_command("export_skills", str(tmp_path / "default"), stdout=StringIO())
    call_command("export_skills", str(tmp_path / "alpha"), "--project", "alpha", stdout=StringIO())
    with pytest.raises(CommandError, match="--project: no project 'nowhere'"):
        call_command("export_skills", str(tmp_path / "x"), "--project", "nowhere")

    assert not (tmp_path / "default" / SKILL).exists()
    assert (tmp_path / "alpha" / SKILL).read_text() == "# Alpha\n"
    assert not (tmp_path / "x").exists()
