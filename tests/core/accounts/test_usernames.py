"""A username is one person's whatever its case: the database refuses a second "Ann" beside
"ann", the portal's form, `adduser` and the admin say so next to the username, the migration
that adds the rule stops naming any such people, and the existing person still logs in."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from core.accounts.models import USERNAME_TAKEN, User
from tests.factories import UserFactory
from tests.harness import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann() -> User:
    return UserFactory.create(username="Ann")


def _admin() -> Client:
    boss = UserFactory.create(username="boss", role="admin")
    client = Client()
    client.force_login(boss)
    return client


@pytest.mark.parametrize("other", ["ann", "ANN", "aNn"])
def test_the_database_refuses_a_username_differing_only_in_case(ann: User, other: str) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username=other, password=PASSWORD)
    assert User.objects.filter(username__iexact="ann").count() == 1


def test_the_people_page_refuses_it_next_to_the_username(ann: User) -> None:
    form = {"username": "ann", "role": "reviewer", "password": "long-enough-1"}
    response = _admin().post("/accounts/people/", form)
    assert response.status_code == 400
    assert response.context["form"].errors["username"] == [USERNAME_TAKEN]
    assert not User.objects.filter(username="ann").exists()


def test_adduser_refuses_it_with_a_message(ann: User) -> None:
    with pytest.raises(CommandError, match="'Ann' exists already"):
        call_command("adduser", "ANN", "--role", "annotator", "--password", "long-enough-1")


def test_the_admins_add_form_refuses_it(ann: User) -> None:
    form = {"username": "ANN", "password1": "long-enough-1", "password2": "long-enough-1"}
    response = _admin().post("/admin/accounts/user/add/", form)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["username"]
    assert not User.objects.filter(username="ANN").exists()


def test_the_admins_change_form_refuses_a_rename_into_it(ann: User) -> None:
    bob = UserFactory.create(username="bob")
    client = _admin()
    form = client.get(f"/admin/accounts/user/{bob.pk}/change/").context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None}
    data.update(username="ann", date_joined_0="2026-01-01", date_joined_1="00:00:00")
    response = client.post(f"/admin/accounts/user/{bob.pk}/change/", data)
    assert response.status_code == 200
    assert USERNAME_TAKEN in response.content.decode()
    bob.refresh_from_db()
    assert bob.username == "bob"


def test_the_existing_person_still_logs_in(ann: User) -> None:
    response = Client().post("/login/", {"username": "Ann", "password": PASSWORD})
    assert response.status_code == 302


@pytest.mark.django_db(transaction=True)
def test_the_migration_stops_naming_the_people_whose_usernames_differ_only_in_case() -> None:
    call_command("migrate", "accounts", "0001", verbosity=0)  # before the rule
    # The people as that schema held them (today's model has columns it lacks, and lacks some).
    then = MigrationExecutor(connection).loader.project_state(("accounts", "0001_initial")).apps
    try:
        for name in ("ann", "Ann", "bob", "BOB", "carol"):
            then.get_model("accounts", "User").objects.create(username=name, password="!")
        with pytest.raises(RuntimeError) as stopped:
            call_command("migrate", "accounts", verbosity=0)
        assert "'Ann', 'ann'; 'BOB', 'bob'" in str(stopped.value)
        assert "carol" not in str(stopped.value)
    finally:
        then.get_model("accounts", "User").objects.filter(username__in=["Ann", "BOB"]).delete()
        # Every app: going back in accounts also took back what depends on it in other apps.
        call_command("migrate", verbosity=0)
    with pytest.raises(IntegrityError):
        User.objects.create_user(username="ANN", password=PASSWORD)
