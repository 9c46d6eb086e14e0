"""Invitations: a manager brings a person with no account into their project, over REST and on
the members page; the person chooses a password at the one-time link and is signed in
(docs/contract.md, "Teams"). No link opens an account someone already uses."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
import time_machine
from django.conf import settings
from django.test import Client

from core.accounts.models import User
from core.projects.services import member_set, project_add
from tests.factories.accounts import UserFactory
from tests.harness import Actor, human_actor

if TYPE_CHECKING:
    from core.projects.models import Project

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-long-new-password-1"


@pytest.fixture
def alpha(db: None) -> Project:
    return project_add(slug="alpha", name="Alpha team")


@pytest.fixture
def lead(alpha: Project) -> Actor:
    return human_actor("lead", "manager", project="alpha")


def invite(actor: Actor, username: str = "nora", role: str = "annotator") -> dict[str, object]:
    response = actor.rest(
        "post", "/api/projects/alpha/invitations/", {"username": username, "role": role}
    )
    assert response.status_code == 201, response.content
    assert response["Cache-Control"] == "no-store"
    return dict(response.json())


def choose_password(link: str, password: str = NEW_PASSWORD) -> tuple[Client, int]:
    """Follow the link as the invited person would, and send the password twice."""
    client = Client()
    shown = client.get(urlsplit(link).path, follow=True)
    if shown.status_code != 200:
        return client, shown.status_code
    form_at = shown.redirect_chain[-1][0]  # the token moved into the session
    sent = client.post(form_at, {"new_password1": password, "new_password2": password})
    return client, sent.status_code


def test_an_invited_person_gets_an_account_a_role_and_a_link(lead: Actor, alpha: Project) -> None:
    answer = invite(lead, "Nora", "reviewer")
    assert {k: answer[k] for k in ("username", "role", "invited")} == {
        "username": "Nora",
        "role": "reviewer",
        "invited": True,
    }
    assert str(answer["url"]).startswith("http://testserver/welcome/")
    nora = User.objects.get(username="Nora")
    assert (nora.has_usable_password(), nora.memberships.get().project, nora.is_superuser) == (
        False,
        alpha,
        False,
    )
    listed = lead.rest("get", "/api/projects/alpha/members/").json()["results"]
    assert {"username": "Nora", "role": "reviewer", "invited": True} in listed


def test_the_link_sets_the_password_signs_in_and_works_once(lead: Actor) -> None:
    link = str(invite(lead)["url"])
    client, status = choose_password(link)
    assert status == 302
    home = client.get("/")
    assert home.status_code == 200
    assert home.context["user"].username == "nora"
    signed = Client().post("/login/", {"username": "nora", "password": NEW_PASSWORD})
    assert (signed.status_code, signed["Location"]) == (302, "/")
    assert choose_password(link, "another-password-2")[1] == 410  # spent
    member = lead.rest("get", "/api/projects/alpha/members/").json()["results"]
    assert {"username": "nora", "role": "annotator", "invited": False} in member


def test_a_new_link_ends_the_old_one(lead: Actor) -> None:
    first = str(invite(lead)["url"])
    second = str(invite(lead, role="reviewer")["url"])
    assert choose_password(first)[1] == 410
    assert choose_password(second)[1] == 302
    assert User.objects.get(username="nora").memberships.get().role == "reviewer"


def test_a_link_ends_after_its_days(lead: Actor) -> None:
    life = timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    with time_machine.travel("2026-12-01 12:00", tick=False) as traveller:
        late, in_time = str(invite(lead, "late")["url"]), str(invite(lead, "in-time")["url"])
        traveller.shift(life - timedelta(minutes=1))
        assert choose_password(in_time)[1] == 302
        traveller.shift(timedelta(minutes=2))
        assert choose_password(late)[1] == 410
    assert not User.objects.get(username="late").has_usable_password()


def test_a_bad_or_mangled_link_shows_no_person(lead: Actor) -> None:
    link = urlsplit(str(invite(lead)["url"])).path
    uid = link.split("/")[2]
    for path in (f"/welcome/{uid}/not-a-token/", "/welcome/bm9wZQ/abc-def/", link[:-4] + "0000/"):
        response = Client().get(path, follow=True)
        assert response.status_code == 410, path
        assert b"nora" not in response.content
        assert b"no longer good" in response.content


def test_a_weak_password_is_refused_next_to_its_field_and_the_link_stays_good(
    lead: Actor,
) -> None:
    link = str(invite(lead)["url"])
    client = Client()
    form_at = client.get(urlsplit(link).path, follow=True).redirect_chain[-1][0]
    weak = client.post(form_at, {"new_password1": "nora", "new_password2": "nora"})
    assert weak.status_code == 400
    assert weak.context["form"].errors.keys() == {"new_password2"}
    assert not User.objects.get(username="nora").has_usable_password()
    assert (
        client.post(
            form_at, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
        ).status_code
        == 302
    )


@pytest.mark.parametrize(
    ("username", "status", "field"),
    [
        ("ann", 409, "username"),  # has an account, in default
        ("ANN", 409, "username"),  # usernames differ in more than case
        ("boss", 409, "username"),  # a site admin
        ("no spaces", 400, "username"),
        ("x" * 151, 400, "username"),
    ],
)
def test_no_invitation_for_a_person_with_an_account_or_a_bad_name(
    lead: Actor, ann: Actor, boss: Actor, username: str, status: int, field: str
) -> None:
    people = set(User.objects.values_list("username", "password"))
    response = lead.rest(
        "post", "/api/projects/alpha/invitations/", {"username": username, "role": "annotator"}
    )
    assert response.status_code == status, response.content
    assert response.json()["details"][0]["loc"] == [field]
    assert set(User.objects.values_list("username", "password")) == people


def test_a_bad_role_makes_no_account(lead: Actor) -> None:
    response = lead.rest(
        "post", "/api/projects/alpha/invitations/", {"username": "nora", "role": "admin"}
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["role"]
    assert not User.objects.filter(username="nora").exists()


def test_no_manager_draws_a_link_for_someone_another_project_invited(
    lead: Actor, alpha: Project
) -> None:
    beta = project_add(slug="beta", name="Beta")
    other = human_actor("other-lead", "manager", project="beta")
    other.rest("post", "/api/projects/beta/invitations/", {"username": "nora", "role": "annotator"})
    before = User.objects.get(username="nora").password
    member_set(project=alpha, person=User.objects.get(username="nora"), role="annotator")
    response = lead.rest(
        "post", "/api/projects/alpha/invitations/", {"username": "nora", "role": "annotator"}
    )
    assert response.status_code == 409
    assert User.objects.get(username="nora").password == before  # beta's link still good
    assert beta.memberships.filter(user__username="nora").exists()


def test_only_a_projects_managers_invite(lead: Actor, alpha: Project) -> None:
    annotator = human_actor("alpha-ann", "annotator", project="alpha")
    outsider = human_actor("outsider", "manager")  # manager of default, not alpha
    body = {"username": "nora", "role": "annotator"}
    assert annotator.rest("post", "/api/projects/alpha/invitations/", body).status_code == 403
    assert outsider.rest("post", "/api/projects/alpha/invitations/", body).status_code == 404
    assert not User.objects.filter(username="nora").exists()


def test_the_link_opens_no_account_in_use(alpha: Project) -> None:
    """A person who signed in once (or has a password) is no invitee, whatever token is made."""
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    person = UserFactory.create(username="used", role="annotator")
    uid = urlsafe_base64_encode(force_bytes(person.pk))
    token = default_token_generator.make_token(person)
    response = Client().get(f"/welcome/{uid}/{token}/", follow=True)
    assert response.status_code == 410
    assert b"used" not in response.content


# The members page ---------------------------------------------------------------------------


def logged_in_lead(alpha: Project) -> Client:
    person = UserFactory.create(username="lead", role="annotator")
    member_set(project=alpha, person=person, role="manager")
    client = Client()
    client.force_login(person)
    return client


def test_the_members_page_invites_and_shows_the_link_once(alpha: Project) -> None:
    client = logged_in_lead(alpha)
    shown = client.post(
        "/projects/alpha/members/invite/", {"invite-username": "nora", "invite-role": "reviewer"}
    )
    assert shown.status_code == 200
    assert "no-store" in shown["Cache-Control"]
    url = shown.context["invited"]["url"]
    assert url.startswith("http://testserver/welcome/") and url in shown.content.decode()
    again = client.get("/projects/alpha/members/").content.decode()
    assert url not in again
    assert 'data-member="nora"' in again
    assert 'title="has not chosen a password yet">invited</span>' in again
    assert choose_password(url)[1] == 302


def test_the_members_page_refuses_an_invitation_next_to_its_field(alpha: Project) -> None:
    client = logged_in_lead(alpha)
    shown = client.post(
        "/projects/alpha/members/invite/", {"invite-username": "lead", "invite-role": "annotator"}
    )
    assert shown.status_code == 409
    assert shown.context["invite_form"].errors.keys() == {"username"}
    assert shown.context["invited"] is None
