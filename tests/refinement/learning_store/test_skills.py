from __future__ import annotations

from typing import TYPE_CHECKING

from tests.refinement.learning_store.helpers import GLOBAL_SKILL, learn, make_step, skill_edit

if TYPE_CHECKING:
    from tests.harness import Actor


def _store_skill(agent: Actor, text: str) -> None:
    reply = learn(agent, "apply", proposal=skill_edit(text))
    assert reply["applied_edits"] == 1, reply


def test_it_lists_each_file_with_its_version_and_size(agent: Actor, ann: Actor) -> None:
    _store_skill(agent, "# Skill\n")

    files = ann.client.get("/api/skills/").json()

    assert len(files) == 1
    assert files[0]["path"] == GLOBAL_SKILL
    assert files[0]["version"] == 1
    assert files[0]["size"] == len("# Skill\n")
    assert files[0]["updated_by"] == "token:agent-1"


def test_it_returns_one_files_text_by_its_path(agent: Actor, ann: Actor) -> None:
    _store_skill(agent, "# Skill\n")

    body = ann.client.get(f"/api/skills/{GLOBAL_SKILL}").json()

    assert body == {"path": GLOBAL_SKILL, "version": 1, "text": "# Skill\n"}


def test_it_answers_not_found_for_a_file_that_does_not_exist(ann: Actor) -> None:
    response = ann.client.get("/api/skills/learnings/_global/references/nothing.md")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_it_refuses_a_step_whose_learnings_access_is_none(
    agent: Actor, boss: Actor, ann: Actor
) -> None:
    _store_skill(agent, "# Skill\n")
    make_step(boss, "move-files", learnings_access="none")

    response = ann.client.get(f"/api/skills/{GLOBAL_SKILL}?step=move-files")

    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"


def test_it_lets_a_step_never_configured_read(agent: Actor, ann: Actor) -> None:
    _store_skill(agent, "# Skill\n")

    response = ann.client.get(f"/api/skills/{GLOBAL_SKILL}?step=brand-new")

    assert response.status_code == 200
    assert response.json()["text"] == "# Skill\n"
