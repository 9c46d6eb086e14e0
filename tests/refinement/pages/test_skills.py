"""The reviewers' skills pages: the learnings tree, a file's versions and diffs, and a step's
settings, which an admin changes as a refinement that rolls back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refinement.models import HistoryEntry, Refinement
from tests.refinement.learning_store.helpers import GLOBAL_SKILL, learn, make_step, skill_edit

if TYPE_CHECKING:
    from tests.harness import Actor

HOSTILE_SKILL = (
    "# Checkout runbook\n\nSee [auth](references/auth.md).\n\n"
    "<script>alert('owned')</script>\n\n[click](javascript:alert(1))\n\n"
    '<img src="x" onerror="alert(1)">\n'
)
REFERENCE = "learnings/_global/references/auth.md"
STEP_SCRIPT = "learnings/checkout/main.py"


def store(agent: Actor, text: str, *, path: str = GLOBAL_SKILL, old: str | None = None) -> None:
    reply = learn(agent, "apply", proposal=skill_edit(text, path=path, old=old))
    assert reply["applied_edits"] == 1, reply


def test_the_tree_renders_the_global_skill_as_sanitized_markdown(agent: Actor, rev: Actor) -> None:
    store(agent, HOSTILE_SKILL)
    store(agent, "# Auth\nUse SSO.\n", path=REFERENCE)

    response = rev.browser().get("/skills/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "<h2>Checkout runbook</h2>" in html  # below the page's own h1
    assert f'<a href="/skills/{REFERENCE}"' in html  # relative to SKILL.md's folder
    assert "<script>alert" not in html
    assert "<p>&lt;script&gt;alert('owned')&lt;/script&gt;</p>" in html  # shown as text
    assert 'href="javascript:' not in html
    assert "<img" not in html
    assert f'href="/skills/{REFERENCE}"' in html


def test_an_empty_store_says_how_learnings_arrive(rev: Actor) -> None:
    html = rev.browser().get("/skills/").content.decode()

    assert "No learnings yet" in html
    assert "/api/steps/&lt;step-id&gt;/runs/" in html


def test_a_file_page_shows_its_versions_and_a_diff_between_any_two(
    agent: Actor, rev: Actor
) -> None:
    store(agent, "# Skill\none\n")
    store(agent, "# Skill\ntwo\n", old="# Skill\none\n")
    store(agent, "# Skill\nthree\n", old="# Skill\ntwo\n")
    client = rev.browser()

    latest = client.get(f"/skills/{GLOBAL_SKILL}")
    assert [r["version"] for r in latest.context["revisions"]] == [3, 2, 1]
    assert [(d.kind, d.text) for d in latest.context["diff_lines"] if d.kind in {"add", "del"}] == [
        ("del", "-two"),
        ("add", "+three"),
    ]

    chosen = client.get(f"/skills/{GLOBAL_SKILL}", {"a": 1, "b": 3})
    assert [(d.kind, d.text) for d in chosen.context["diff_lines"] if d.kind in {"add", "del"}] == [
        ("del", "-one"),
        ("add", "+three"),
    ]
    created = client.get(f"/skills/{GLOBAL_SKILL}", {"a": 0, "b": 1})
    assert created.context["diff_lines"][0].text == "--- /dev/null"


def test_a_version_that_does_not_exist_is_refused_next_to_its_field(
    agent: Actor, rev: Actor
) -> None:
    store(agent, "# Skill\n")

    response = rev.browser().get(f"/skills/{GLOBAL_SKILL}", {"a": 9})

    assert response.status_code == 400
    assert response.context["diff_errors"] == {"a": "not a version of this file"}
    assert 'data-field="a"' in response.content.decode()


def test_a_step_page_shows_its_settings_metadata_and_artifacts(
    agent: Actor, boss: Actor, rev: Actor
) -> None:
    make_step(boss, "checkout", learnings_access="read-write", learning_objective="selectors")
    response = agent.rest("post", "/api/steps/checkout/runs/", {"description": "Pay"})
    assert response.status_code == 200

    page = rev.browser().get("/steps/checkout/")

    html = page.content.decode()
    assert page.context["step"]["description_hash_runs"] == 1
    assert page.context["step"]["last_description_hash"] in html
    assert "selectors" in html
    assert page.context["form"] is None  # a reviewer reads the settings; an admin changes them


def test_an_admins_settings_edit_is_a_refinement_and_rolling_it_back_restores_them(
    boss: Actor,
) -> None:
    make_step(boss, "checkout", learnings_access="read-write", learning_objective="selectors")
    client = boss.browser()

    response = client.post(
        "/steps/checkout/settings/",
        {
            "learnings_access": "read-write",
            "learning_objective": "selectors",
            "lock_learnings": "on",
            "review_notes": "the skill is stable",
        },
    )

    assert response.status_code == 302
    lock = Refinement.objects.filter(rollback_of__isnull=True).order_by("-ts", "-id").first()
    assert lock is not None
    assert [e["path"] for e in lock.edits] == ["steps.checkout.lock_learnings"]
    assert HistoryEntry.objects.filter(kind="apply", refinement_id=lock.refinement_id).exists()
    step = client.get("/steps/checkout/").context["step"]
    assert (step["lock_learnings"], step["review_notes"]) == (True, "the skill is stable")

    undo = client.post(f"/steps/checkout/refinements/{lock.refinement_id}/rollback/")

    assert undo.status_code == 302
    restored = client.get("/steps/checkout/").context["step"]
    assert restored["lock_learnings"] is False
    assert (restored["learnings_access"], restored["learning_objective"]) == (
        "read-write",
        "selectors",
    )
    lock.refresh_from_db()
    assert lock.status == "rolled_back"


def test_locking_without_a_reason_is_refused_next_to_review_notes(boss: Actor) -> None:
    response = boss.browser().post(
        "/steps/checkout/settings/", {"learnings_access": "read", "lock_learnings": "on"}
    )

    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["review_notes"]
    assert 'data-field="review_notes"' in response.content.decode()
    assert not Refinement.objects.exists()


def test_read_write_without_an_objective_is_refused_next_to_the_objective(boss: Actor) -> None:
    response = boss.browser().post("/steps/checkout/settings/", {"learnings_access": "read-write"})

    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["learning_objective"]


@pytest.mark.parametrize("who", ["rev", "ann"])
def test_only_an_admin_changes_step_settings(
    request: pytest.FixtureRequest, who: str, boss: Actor
) -> None:
    client = request.getfixturevalue(who).browser()

    response = client.post("/steps/checkout/settings/", {"learnings_access": "none"})

    assert response.status_code == 403
    assert "Not for your role" in response.content.decode()
    assert boss.client.get("/api/steps/checkout/").json()["learnings_access"] == "read"


def test_an_annotator_gets_the_403_page_on_the_skills_pages(agent: Actor, ann: Actor) -> None:
    store(agent, "# Skill\n")
    client = ann.browser()
    for path in ["/skills/", f"/skills/{GLOBAL_SKILL}", "/steps/checkout/"]:
        response = client.get(path)
        assert response.status_code == 403, path
        assert "Not for your role" in response.content.decode()


def test_an_unknown_file_or_step_id_is_a_404(rev: Actor) -> None:
    client = rev.browser()
    assert client.get("/skills/learnings/_global/references/none.md").status_code == 404
    assert client.get("/skills/etc/passwd").status_code == 404
    assert client.get("/steps/not..a-step/").status_code == 404
