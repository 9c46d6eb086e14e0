"""Logins are refused for a cool-off after repeated failures for one account or from one client,
on the portal's and the admin's login pages alike, with a message saying so."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import call_command
from django.test import Client

from tests.factories import PASSWORD, UserFactory

if TYPE_CHECKING:
    from tests.harness import ClientResponse

LOCKED_OUT = "Too many failed logins"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _people() -> None:
    UserFactory.create(username="ann")
    UserFactory.create(username="bob")
    UserFactory.create(username="boss", role="admin")


def log_in(
    username: str, password: str, *, address: str = "192.0.2.10", path: str = "/login/"
) -> ClientResponse:
    return Client().post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def fail(times: int, username: str, **where: str) -> None:
    for _ in range(times):
        response = log_in(username, "wrong-password", **where)
        assert response.status_code in {200, 429}


def test_a_login_works_after_fewer_failures_than_the_limit(settings: Any) -> None:
    fail(settings.AXES_FAILURE_LIMIT - 1, "ann")
    assert log_in("ann", PASSWORD).status_code == 302


def test_after_repeated_failures_for_one_account_it_is_refused_from_anywhere(
    settings: Any,
) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT):
        fail(1, "ann", address=f"192.0.2.{n + 1}")  # spread over addresses: the account counts
    response = log_in("ann", PASSWORD, address="198.51.100.7")
    assert response.status_code == 429
    page = response.content.decode()
    assert LOCKED_OUT in page
    assert "15 minutes" in page
    assert log_in("bob", PASSWORD, address="198.51.100.7").status_code == 302


def test_after_repeated_failures_from_one_client_it_is_refused_for_every_account(
    settings: Any,
) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT):
        fail(1, f"nobody-{n}", address="203.0.113.5")
    response = log_in("bob", PASSWORD, address="203.0.113.5")
    assert response.status_code == 429
    assert LOCKED_OUT in response.content.decode()
    assert log_in("bob", PASSWORD, address="203.0.113.6").status_code == 302


def test_the_lockout_ends_after_the_cool_off(settings: Any, time_machine: Any) -> None:
    time_machine.move_to("2026-03-02 09:00:00+00:00", tick=False)
    fail(settings.AXES_FAILURE_LIMIT, "ann")
    time_machine.shift(timedelta(minutes=14, seconds=59))
    assert log_in("ann", PASSWORD).status_code == 429
    time_machine.shift(timedelta(seconds=2))
    assert log_in("ann", PASSWORD).status_code == 302


def test_a_successful_login_resets_the_failures(settings: Any) -> None:
    limit = settings.AXES_FAILURE_LIMIT
    fail(limit - 1, "ann")
    assert log_in("ann", PASSWORD).status_code == 302
    fail(limit - 1, "ann")
    assert log_in("ann", PASSWORD).status_code == 302


def test_the_admin_login_is_covered_too(settings: Any) -> None:
    fail(settings.AXES_FAILURE_LIMIT, "boss", path="/admin/login/")
    response = log_in("boss", PASSWORD, path="/admin/login/")
    assert response.status_code == 429
    assert LOCKED_OUT in response.content.decode()
    assert log_in("boss", PASSWORD).status_code == 429  # one count for the account


def test_an_operator_unlocks_an_account_with_axes_reset_username(settings: Any) -> None:
    fail(settings.AXES_FAILURE_LIMIT, "ann")
    assert log_in("ann", PASSWORD).status_code == 429
    call_command("axes_reset_username", "ann", stdout=io.StringIO())
    assert log_in("ann", PASSWORD).status_code == 302
