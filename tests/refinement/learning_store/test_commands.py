from __future__ import annotations

import json
from io import StringIO
from typing import TYPE_CHECKING

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from refinement.models import Plan, Proposal, StoreValue
from tests.factories import StepFactory, StoreValueFactory
from tests.refinement.learning_store.helpers import GLOBAL_SKILL, learn, skill_edit

if TYPE_CHECKING:
    from pathlib import Path

    from tests.harness import Actor

REFERENCE = "learnings/_global/references/auth.md"


def _command(name: str, directory: Path) -> str:
    out = StringIO()
    call_command(name, str(directory), stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def stored_skill(agent: Actor) -> None:
    assert learn(agent, "apply", proposal=skill_edit("# Skill\n"))["applied_edits"] == 1
    ref = skill_edit("Use SSO.\n", path=REFERENCE)
    assert learn(agent, "apply", proposal=ref)["applied_edits"] == 1


def test_export_writes_every_learnings_file(stored_skill: None, tmp_path: Path) -> None:
    _command("export_skills", tmp_path)

    assert (tmp_path / GLOBAL_SKILL).read_text() == "# Skill\n"
    assert (tmp_path / REFERENCE).read_text() == "Use SSO.\n"


def test_export_writes_each_steps_learning_metadata(db: None, tmp_path: Path) -> None:
    StepFactory.create(
        step_id="login",
        learning_objective="auth flows",
        last_description_hash="ab" * 32,
        description_hash_runs=3,
    )

    _command("export_skills", tmp_path)

    metadata = json.loads((tmp_path / "learnings/login/.learning_metadata.json").read_text())
    assert metadata["description_hash_runs"] == 3
    assert metadata["last_description_hash"] == "ab" * 32
    assert metadata["learnings_access"] == "read-write"
    assert metadata["lock_learnings"] is False


def test_import_files_one_plan_for_the_changed_files_only(
    stored_skill: None, tmp_path: Path
) -> None:
    _command("export_skills", tmp_path)
    (tmp_path / GLOBAL_SKILL).write_text("# Skill\nSee references/auth.md\n")
    (tmp_path / "learnings/_global/references/forms.md").write_text("Tab order.\n")
    (tmp_path / REFERENCE).unlink()

    out = _command("import_skills", tmp_path)

    plan = Plan.objects.get(origin="import")
    assert plan.plan_id in out and "2 proposals" in out
    assert plan.requested_by == "cli:import"
    ops = {p.path: p.op for p in Proposal.objects.filter(plan=plan)}
    assert ops == {GLOBAL_SKILL: "update", "learnings/_global/references/forms.md": "create"}
    assert StoreValue.objects.get(path=GLOBAL_SKILL).value == "# Skill\n"


def test_an_unchanged_tree_files_no_plan(stored_skill: None, tmp_path: Path) -> None:
    _command("export_skills", tmp_path)

    assert "nothing to import" in _command("import_skills", tmp_path)
    assert not Plan.objects.exists()


def test_an_imported_plan_applies_once_a_reviewer_approves(
    stored_skill: None, tmp_path: Path, rev: Actor
) -> None:
    _command("export_skills", tmp_path)
    (tmp_path / GLOBAL_SKILL).write_text("# Skill v2\n")
    _command("import_skills", tmp_path)
    pid = Proposal.objects.get(plan__origin="import").proposal_id

    rev.client.post(f"/api/proposals/{pid}/apply/")

    assert rev.client.get(f"/api/skills/{GLOBAL_SKILL}").json()["text"] == "# Skill v2\n"


def test_export_refuses_a_path_that_would_escape_the_directory(tmp_path: Path, db: None) -> None:
    StoreValueFactory.create(path="learnings/../../escaped.md", value="x")

    with pytest.raises(CommandError, match="cannot be written"):
        _command("export_skills", tmp_path / "out")

    assert not (tmp_path / "escaped.md").exists()
