"""Django's admin is for admins: others get the portal's 403 page, visitors its login."""

from __future__ import annotations

import pytest
from django.test import Client

from core.accounts.models import User

pytestmark = pytest.mark.django_db

ADMIN_PATHS = ["/admin/", "/admin/accounts/user/", "/admin/accounts/apitoken/add/"]


def logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.mark.parametrize("username", ["annotator", "reviewer"])
def test_a_person_who_is_not_an_admin_gets_the_portals_403_page(
    seeded: None, username: str
) -> None:
    client = logged_in(username)
    for path in [*ADMIN_PATHS, "/admin/login/"]:
        response = client.get(path)
        assert response.status_code == 403, path
        assert response.templates[0].name == "portal/403.html", path
        assert "Not for your role" in response.content.decode()


def test_an_anonymous_visitor_goes_to_the_portals_login_and_back(seeded: None) -> None:
    response = Client().get("/admin/accounts/user/")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/admin/accounts/user/"


def test_an_admin_uses_djangos_admin(seeded: None) -> None:
    client = logged_in("admin")
    for path in ADMIN_PATHS:
        assert client.get(path).status_code == 200, path
