"""Existing people and tokens move into the project `default` with the roles they had."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.accounts.models import ApiToken, User
from core.accounts.principals import principal_for_user
from core.accounts.roles import Role

pytestmark = pytest.mark.django_db(transaction=True)


def test_people_and_machine_tokens_land_in_default_with_their_roles() -> None:
    call_command("migrate", "accounts", "0002", verbosity=0)  # before projects
    then = (
        MigrationExecutor(connection)
        .loader.project_state(("accounts", "0002_username_unique_in_any_case"))
        .apps
    )
    try:
        OldUser = then.get_model("accounts", "User")
        OldToken = then.get_model("accounts", "ApiToken")
        for name, role, root in (
            ("ann", "annotator", False),
            ("rev", "reviewer", False),
            ("su", "admin", True),
        ):
            OldUser.objects.create(username=name, password="!", role=role, is_superuser=root)
        OldToken.objects.create(name="bot", role="agent", key_hash="h" * 64, hint="lp_")
    finally:
        call_command("migrate", verbosity=0)
    roles = {u.username: principal_for_user(u).role for u in User.objects.all()}
    assert roles == {"ann": Role.ANNOTATOR, "rev": Role.REVIEWER, "su": Role.ADMIN}
    bot = ApiToken.objects.select_related("project").get(name="bot")
    assert bot.project is not None and bot.project.slug == "default"
