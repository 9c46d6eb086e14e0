"""`createtoken --project` and `adduser --project`: a credential or a person in one project."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.accounts.credentials import Credential, principals
from core.accounts.models import ApiToken, User, hash_token
from core.accounts.principals import principal_for_user
from core.accounts.roles import Role
from core.projects.models import DEFAULT_PROJECT
from core.projects.services import project_add

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_a_machine_token_belongs_to_default_unless_told(db: None) -> None:
    project_add(slug="alpha", name="Alpha")
    plain = run("createtoken", "bot-1", "--role", "agent").strip()
    placed = run("createtoken", "bot-2", "--role", "environment", "--project", "alpha").strip()
    assert ApiToken.objects.filter(name="bot-1", project__slug=DEFAULT_PROJECT).exists()
    principal = principals.principal(Credential("token", hash_token(placed)))
    assert principal is not None and (principal.project, principal.role) == (
        "alpha",
        Role.ENVIRONMENT,
    )
    first = principals.principal(Credential("token", hash_token(plain)))
    assert first is not None and first.project == DEFAULT_PROJECT


def test_a_token_for_a_project_that_is_not_there_is_refused_and_not_made(db: None) -> None:
    with pytest.raises(CommandError, match="No project 'omega'"):
        run("createtoken", "bot-1", "--role", "agent", "--project", "omega")
    assert not ApiToken.objects.exists()


def test_a_personal_token_takes_no_project(db: None) -> None:
    run("adduser", "erin", "--role", "reviewer", "--password", "long-enough-1")
    with pytest.raises(CommandError, match="no --project"):
        run("createtoken", "erin", "--user", "--project", "alpha")


def test_adduser_makes_a_member_of_the_project_and_of_no_other(db: None) -> None:
    project_add(slug="alpha", name="Alpha")
    said = run(
        "adduser", "nora", "--role", "manager", "--password", "long-enough-1", "--project", "alpha"
    )
    assert said.strip() == "Created manager nora in alpha."
    principal = principal_for_user(User.objects.get(username="nora"))
    assert (principal.project, principal.role, principal.seats) == (
        "alpha",
        Role.MANAGER,
        (("alpha", Role.MANAGER),),
    )


def test_an_admin_is_a_site_admin_in_no_project_of_their_own(db: None) -> None:
    run("adduser", "root2", "--role", "admin", "--password", "long-enough-1", "--project", "x")
    person = User.objects.get(username="root2")
    assert person.is_superuser and not person.memberships.exists()
    assert principal_for_user(person).role is Role.ADMIN


def test_adduser_for_a_project_that_is_not_there_makes_nobody(db: None) -> None:
    with pytest.raises(CommandError, match="No project 'omega'"):
        run(
            "adduser",
            "nora",
            "--role",
            "annotator",
            "--password",
            "long-enough-1",
            "--project",
            "omega",
        )
    assert not User.objects.filter(username="nora").exists()


def test_createproject_makes_a_project_people_and_tokens_may_be_put_in(db: None) -> None:
    assert run("createproject", "support", "--name", "Support bot").strip() == (
        "Made the project support."
    )
    run("adduser", "lead", "--role", "manager", "--project", "support", "--password", "pw-lead-42x")
    lead = principal_for_user(User.objects.get(username="lead"))
    assert lead is not None and dict(lead.seats) == {"support": Role.MANAGER}
    run("createtoken", "support-agent", "--role", "agent", "--project", "support")
    token = ApiToken.objects.select_related("project").get(name="support-agent")
    assert token.project is not None and token.project.name == "Support bot"


@pytest.mark.parametrize(
    ("slug", "says"), [("Not A Slug", "lowercase"), ("default", "exists already")]
)
def test_createproject_refuses_a_bad_or_taken_slug_by_name(db: None, slug: str, says: str) -> None:
    with pytest.raises(CommandError, match=says):
        run("createproject", slug)
