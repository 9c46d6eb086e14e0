"""`/api/projects/`: who sees which project, who changes it, and its members; a project one may
not enter is not found, exactly as one that does not exist (docs/contract.md, "Teams")."""

from __future__ import annotations

import pytest

from core.accounts.models import User
from core.accounts.roles import Role
from core.projects.models import (
    DEFAULT_GOLD_MIN_ITEMS,
    DEFAULT_PRIORITY_NEGATIVE,
    DEFAULT_PRIORITY_UNSURE,
    DEFAULT_PROJECT,
    MAX_PRIORITY_WEIGHT,
    Project,
)
from core.projects.services import member_set, project_add
from tests.factories.accounts import UserFactory
from tests.harness import Actor, human_actor, token_actor

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(db: None) -> Project:
    return project_add(slug="alpha", name="Alpha team")


@pytest.fixture
def lead(alpha: Project) -> Actor:
    """Alpha's manager, and nothing in `default`."""
    return human_actor("lead", "manager", project="alpha")


def slugs(actor: Actor) -> list[str]:
    response = actor.rest("get", "/api/projects/")
    assert response.status_code == 200, response.content
    return [project["slug"] for project in response.json()["results"]]


def test_a_fresh_portal_has_the_project_default(boss: Actor) -> None:
    assert slugs(boss) == [DEFAULT_PROJECT]


def test_each_principal_lists_the_projects_it_may_see(
    alpha: Project, lead: Actor, ann: Actor, boss: Actor
) -> None:
    project_add(slug="beta", name="Beta")
    assert slugs(boss) == ["alpha", "beta", DEFAULT_PROJECT]
    assert slugs(lead) == ["alpha"]
    assert slugs(ann) == [DEFAULT_PROJECT]
    assert slugs(token_actor("alpha-agent", "agent", project="alpha")) == ["alpha"]


def test_a_site_admin_makes_a_project_and_nobody_else_may(boss: Actor, lead: Actor) -> None:
    made = boss.rest("post", "/api/projects/", {"slug": "gamma", "name": "Gamma"})
    assert made.status_code == 201, made.content
    assert made.json() == {
        "slug": "gamma",
        "name": "Gamma",
        "ratings_per_turn": None,
        "lease_seconds": None,
        "blind": True,
        "priority_negative": DEFAULT_PRIORITY_NEGATIVE,
        "priority_unsure": DEFAULT_PRIORITY_UNSURE,
        "guidelines": "",
        "guidelines_ack_required": False,
        "comparisons_as_evidence": False,
        "compare_turns": False,
        "gold_rate": 0.0,
        "gold_min_items": DEFAULT_GOLD_MIN_ITEMS,
        "gold_pause_below": 0.0,
        "judges_weighed": False,
    }
    refused = lead.rest("post", "/api/projects/", {"slug": "delta", "name": "Delta"})
    assert refused.status_code == 403
    assert not Project.objects.filter(slug="delta").exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"slug": "Has Caps", "name": "x"}, "slug"),
        ({"slug": "-edge", "name": "x"}, "slug"),
        ({"slug": "ok", "name": ""}, "name"),
        ({"slug": "ok", "name": "a\x00b"}, "name"),  # PostgreSQL keeps no NUL: 400, not 500
        ({"slug": "ok", "name": "two\nlines"}, "name"),
        ({"slug": "ok", "name": "x", "owner": "me"}, "owner"),
    ],
)
def test_a_bad_project_is_refused_naming_the_field(
    boss: Actor, body: dict[str, str], field: str
) -> None:
    response = boss.rest("post", "/api/projects/", body)
    assert response.status_code == 400
    assert [d["loc"] for d in response.json()["details"]] == [[field]]
    assert not Project.objects.filter(slug="ok").exists()


def test_a_taken_slug_is_a_conflict(boss: Actor, alpha: Project) -> None:
    response = boss.rest("post", "/api/projects/", {"slug": "alpha", "name": "Again"})
    assert response.status_code == 409
    assert Project.objects.get(slug="alpha").name == "Alpha team"


def test_a_project_one_may_not_enter_is_not_found_like_one_that_is_not_there(
    alpha: Project, ann: Actor
) -> None:
    theirs = ann.rest("get", "/api/projects/alpha/")
    nobodys = ann.rest("get", "/api/projects/omega/")
    assert theirs.status_code == nobodys.status_code == 404
    assert theirs.json()["message"].replace("alpha", "?") == nobodys.json()["message"].replace(
        "omega", "?"
    )


def test_a_token_names_no_project_but_its_own(alpha: Project) -> None:
    agent = token_actor("alpha-agent", "agent", project="alpha")
    assert agent.rest("get", "/api/projects/alpha/").status_code == 200
    assert agent.rest("get", "/api/projects/default/").status_code == 404
    assert agent.rest("get", "/api/routing/?project=default").status_code == 404
    assert agent.rest("get", "/api/routing/?project=alpha").status_code == 200


def test_its_manager_changes_a_projects_settings(lead: Actor) -> None:
    changes = {
        "ratings_per_turn": 3,
        "lease_seconds": 120,
        "blind": False,
        "priority_negative": 0,
        "priority_unsure": MAX_PRIORITY_WEIGHT,
        "guidelines": "# Hi",
    }
    response = lead.rest("patch", "/api/projects/alpha/", changes)
    assert response.status_code == 200, response.content
    assert response.json() | changes == response.json()
    assert Project.objects.get(slug="alpha").ratings_per_turn == 3
    back = lead.rest("patch", "/api/projects/alpha/", {"ratings_per_turn": None})
    assert back.json()["ratings_per_turn"] is None


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"ratings_per_turn": 0}, "ratings_per_turn"),
        ({"lease_seconds": 10**9}, "lease_seconds"),
        ({"blind": "yes"}, "blind"),
        ({"priority_negative": MAX_PRIORITY_WEIGHT + 1}, "priority_negative"),
        ({"priority_unsure": -1}, "priority_unsure"),
        ({"priority_unsure": None}, "priority_unsure"),
        ({"priority_negative": "2"}, "priority_negative"),
        ({"slug": "renamed"}, "slug"),
        ({"guidelines": "a\x00b"}, "guidelines"),
    ],
)
def test_a_bad_setting_is_refused_naming_it_and_changes_nothing(
    lead: Actor, changes: dict[str, object], field: str
) -> None:
    response = lead.rest("patch", "/api/projects/alpha/", {"name": "New name", **changes})
    assert response.status_code == 400
    assert [d["loc"] for d in response.json()["details"]] == [[field]]
    assert Project.objects.get(slug="alpha").name == "Alpha team"


def test_a_reviewer_of_the_project_may_read_but_not_change_it(alpha: Project) -> None:
    reviewer = human_actor("rita", "reviewer", project="alpha")
    assert reviewer.rest("get", "/api/projects/alpha/").status_code == 200
    assert reviewer.rest("patch", "/api/projects/alpha/", {"name": "Mine"}).status_code == 403
    assert reviewer.rest("get", "/api/projects/alpha/members/").status_code == 403


def test_a_manager_adds_changes_and_removes_members(lead: Actor) -> None:
    UserFactory.create(username="nora", role="annotator")  # in default
    added = lead.rest(
        "post", "/api/projects/alpha/members/", {"username": "nora", "role": "annotator"}
    )
    assert added.status_code == 200, added.content
    assert added.json() == {"username": "nora", "role": "annotator", "invited": False}
    lead.rest("post", "/api/projects/alpha/members/", {"username": "nora", "role": "reviewer"})
    listed = lead.rest("get", "/api/projects/alpha/members/").json()["results"]
    assert listed == [
        {"username": "lead", "role": "manager", "invited": False},
        {"username": "nora", "role": "reviewer", "invited": False},
    ]
    assert lead.rest("delete", "/api/projects/alpha/members/nora/").status_code == 204
    assert lead.rest("delete", "/api/projects/alpha/members/nora/").status_code == 404
    assert [
        m["username"] for m in lead.rest("get", "/api/projects/alpha/members/").json()["results"]
    ] == ["lead"]


def test_a_membership_counts_from_the_next_request(lead: Actor) -> None:
    nora = human_actor("nora", "annotator")
    assert nora.rest("get", "/api/projects/alpha/").status_code == 404
    lead.rest("post", "/api/projects/alpha/members/", {"username": "nora", "role": "manager"})
    assert nora.rest("patch", "/api/projects/alpha/", {"name": "Nora's"}).status_code == 200
    lead.rest("delete", "/api/projects/alpha/members/nora/")
    assert nora.rest("get", "/api/projects/alpha/").status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"username": "ghost", "role": "annotator"}, 404, "username"),
        ({"username": "boss", "role": "annotator"}, 400, "username"),
        ({"username": "lead", "role": "annotator"}, 403, "username"),
        ({"username": "ann", "role": "admin"}, 400, "role"),
    ],
)
def test_a_membership_that_cannot_be_is_refused_naming_the_field(
    lead: Actor, ann: Actor, boss: Actor, body: dict[str, str], status: int, field: str
) -> None:
    response = lead.rest("post", "/api/projects/alpha/members/", body)
    assert response.status_code == status, response.content
    assert response.json()["details"][0]["loc"] == [field]
    assert [
        m["username"] for m in lead.rest("get", "/api/projects/alpha/members/").json()["results"]
    ] == ["lead"]


def test_a_person_acts_in_each_project_with_their_role_there(alpha: Project) -> None:
    both = human_actor("bea", "annotator")  # annotator in default
    member_set(project=alpha, person=User.objects.get(username="bea"), role="manager")
    assert both.rest("patch", "/api/projects/alpha/", {"name": "Bea's"}).status_code == 200
    assert both.rest("patch", "/api/projects/default/", {"name": "Bea's"}).status_code == 403
    assert sorted(slugs(both)) == ["alpha", DEFAULT_PROJECT]


def test_a_person_in_no_project_may_do_nothing_but_is_told_why(db: None) -> None:
    loner = human_actor("loner", "annotator")
    User.objects.get(username="loner").memberships.all().delete()
    response = loner.rest("post", "/api/queue/next/", {})
    assert response.status_code == 403
    assert "not a member of the project 'default'" in response.json()["message"]
    assert slugs(loner) == []
    assert Role.NONE.value == "none"
