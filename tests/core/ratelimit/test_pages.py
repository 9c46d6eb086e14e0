"""The portal's pages, the login page and the admin are limited as the API is: per person, and
under the client's address for anyone not logged in; static files are not counted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from core.accounts.models import User
from tests.harness import PASSWORD

if TYPE_CHECKING:
    from tests.harness import Actor

ONE_PER_TEN_SECONDS = 0.1

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _slow_limit(settings: Any, clock: Any) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS


def _logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.mark.parametrize("path", ["/", "/explorer/", "/components/", "/no-such-page/"])
def test_a_persons_page_answers_429_with_retry_after_once_over_the_limit(
    ann: Actor, path: str
) -> None:
    client = _logged_in("ann")
    assert client.get(path).status_code in {200, 404}
    refused = client.get(path)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 10
    assert "Too many requests" in refused.content.decode()


def test_a_person_has_one_count_for_pages_and_their_personal_token(ann: Actor) -> None:
    assert _logged_in("ann").get("/").status_code == 200
    assert ann.client.get("/api/turns/").status_code == 429


def test_the_login_page_is_limited_by_client_address(db: None) -> None:
    assert Client().get("/login/", REMOTE_ADDR="192.0.2.1").status_code == 200
    assert Client().get("/login/", REMOTE_ADDR="192.0.2.1").status_code == 429
    assert Client().get("/login/", REMOTE_ADDR="192.0.2.2").status_code == 200


def test_a_login_over_the_limit_logs_nobody_in(ann: Actor) -> None:
    client = Client()
    assert client.get("/login/", REMOTE_ADDR="192.0.2.1").status_code == 200
    refused = client.post(
        "/login/", {"username": "ann", "password": PASSWORD}, REMOTE_ADDR="192.0.2.1"
    )
    assert refused.status_code == 429
    assert not Session.objects.exists()


def test_the_admin_is_limited_too(boss: Actor) -> None:
    client = _logged_in("boss")
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/").status_code == 429


def test_static_files_are_not_counted(db: None) -> None:
    client = Client()
    for _ in range(3):
        assert client.get("/static/portal/portal.css").status_code == 200
    assert client.get("/login/").status_code == 200
