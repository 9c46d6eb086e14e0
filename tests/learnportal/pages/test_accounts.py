"""The admins' pages for people and machine tokens, and everyone's page of personal tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.accounts.models import ApiToken, User
from tests.factories import ApiTokenFactory

if TYPE_CHECKING:
    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

STATS = orjson.dumps({"type": "learn/stats/req"})
ADMIN_PAGES = ["/accounts/", "/accounts/tokens/"]
ADMIN_POSTS = [
    ("/accounts/people/", {"username": "x", "role": "admin", "password": "long-enough-1"}),
    ("/accounts/tokens/new/", {"name": "sneaky", "role": "agent"}),
]


def logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def admin(seeded: None) -> Client:
    return logged_in("admin")


def stats_with(raw: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client.post("/api/learn/", STATS, content_type="application/json").status_code


def shown_token(response: ClientResponse) -> str:
    raw: str = response.context["new_token"]["raw"]
    assert raw in response.content.decode()
    return raw


def test_an_admin_creates_a_machine_token_shown_once_that_works_until_revoked(
    admin: Client,
) -> None:
    response = admin.post("/accounts/tokens/new/", {"name": "checkout-agent", "role": "agent"})

    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    raw = shown_token(response)
    assert stats_with(raw) == 200
    listing = admin.get("/accounts/tokens/").content.decode()
    assert "checkout-agent" in listing
    assert raw not in listing  # shown once: never again
    token = ApiToken.objects.get(name="checkout-agent")
    assert token.last_used_at is not None

    response = admin.post(f"/accounts/tokens/{token.pk}/revoke/")

    assert response.status_code == 302
    assert stats_with(raw) == 401


def test_a_bad_token_form_shows_the_error_next_to_its_field_and_makes_nothing(
    admin: Client,
) -> None:
    admin.post("/accounts/tokens/new/", {"name": "gym-1", "role": "environment"})

    response = admin.post("/accounts/tokens/new/", {"name": "gym-1", "role": "environment"})

    assert response.status_code == 400
    assert response.context["form"].errors == {"name": ["a token has this name already"]}
    assert 'data-field="name"' in response.content.decode()
    assert response.context["new_token"] is None
    assert ApiToken.objects.filter(name="gym-1").count() == 1


def test_an_unknown_role_is_refused_on_the_role_field(admin: Client) -> None:
    response = admin.post("/accounts/tokens/new/", {"name": "bot", "role": "admin"})

    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["role"]
    assert not ApiToken.objects.filter(name="bot").exists()


def test_an_admin_adds_a_person_who_can_log_in(admin: Client) -> None:
    response = admin.post(
        "/accounts/people/", {"username": "erin", "role": "reviewer", "password": "long-enough-1"}
    )

    assert response.status_code == 302
    assert User.objects.get(username="erin").effective_role == "reviewer"
    logged = Client().post("/login/", {"username": "erin", "password": "long-enough-1"})
    assert (logged.status_code, logged["Location"]) == (302, "/")


def test_a_short_password_is_refused_next_to_the_password(admin: Client) -> None:
    response = admin.post(
        "/accounts/people/", {"username": "erin", "role": "reviewer", "password": "short"}
    )

    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["password"]
    assert not User.objects.filter(username="erin").exists()


def test_a_role_change_counts_from_the_next_request(admin: Client) -> None:
    annotator = User.objects.get(username="annotator")
    as_annotator = logged_in("annotator")
    assert as_annotator.get("/plans/").status_code == 403

    response = admin.post(f"/accounts/people/{annotator.pk}/role/", {"role": "reviewer"})

    assert response.status_code == 302
    assert as_annotator.get("/plans/").status_code == 200


def test_deactivating_a_person_logs_them_out_and_stops_their_tokens(admin: Client) -> None:
    reviewer = User.objects.get(username="reviewer")
    as_reviewer = logged_in("reviewer")
    raw = shown_token(as_reviewer.post("/tokens/new/", {"label": "script"}))
    assert stats_with(raw) == 200

    response = admin.post(f"/accounts/people/{reviewer.pk}/active/", {"active": "0"})

    assert response.status_code == 302
    assert as_reviewer.get("/plans/").status_code == 302  # to the login
    assert stats_with(raw) == 401


def test_an_admin_cannot_deactivate_themselves_and_is_told_so_in_the_row(admin: Client) -> None:
    me = User.objects.get(username="admin")

    response = admin.post(f"/accounts/people/{me.pk}/active/", {"active": "0"})

    assert response.status_code == 400
    assert "your own account" in response.context["row_errors"][me.pk]
    me.refresh_from_db()
    assert me.is_active


@pytest.mark.parametrize("username", ["annotator", "reviewer"])
def test_people_who_are_not_admins_get_the_403_page_and_change_nothing(
    seeded: None, username: str
) -> None:
    client = logged_in(username)
    for path in ADMIN_PAGES:
        response = client.get(path)
        assert response.status_code == 403, path
        assert "Not for your role" in response.content.decode()
    for path, body in ADMIN_POSTS:
        assert client.post(path, body).status_code == 403, path
    token = ApiTokenFactory.create(name="agent-x").token
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 403
    token.refresh_from_db()
    assert token.is_active
    assert not User.objects.filter(username="x").exists()
    assert not ApiToken.objects.filter(name="sneaky").exists()


def test_anonymous_visitors_are_sent_to_log_in(seeded: None) -> None:
    for path in [*ADMIN_PAGES, "/tokens/"]:
        response = Client().get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/login/")


def test_anyone_makes_lists_and_revokes_their_own_personal_tokens(seeded: None) -> None:
    client = logged_in("annotator")

    response = client.post("/tokens/new/", {"label": "laptop"})

    assert response.status_code == 201
    raw = shown_token(response)
    token = ApiToken.objects.get(name="annotator:laptop")
    assert token.user == User.objects.get(username="annotator")
    assert "annotator:laptop" in client.get("/tokens/").content.decode()
    assert client.post(f"/tokens/{token.pk}/revoke/").status_code == 302
    assert stats_with(raw) == 401


def test_nobody_sees_or_revokes_another_persons_personal_token(seeded: None) -> None:
    theirs = logged_in("reviewer")
    theirs.post("/tokens/new/", {"label": "laptop"})
    token = ApiToken.objects.get(name="reviewer:laptop")
    mine = logged_in("annotator")

    assert "reviewer:laptop" not in mine.get("/tokens/").content.decode()
    mine.post(f"/tokens/{token.pk}/revoke/")

    token.refresh_from_db()
    assert token.is_active


def test_every_form_carries_a_csrf_token_and_labels(admin: Client) -> None:
    for path in [*ADMIN_PAGES, "/tokens/"]:
        html = admin.get(path).content.decode()
        assert html.count('name="csrfmiddlewaretoken"') == html.count('method="post"'), path
        assert "<label" in html, path
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(User.objects.get(username="admin"))
    assert strict.post("/accounts/tokens/new/", {"name": "b", "role": "agent"}).status_code == 403
    assert not ApiToken.objects.filter(name="b").exists()
