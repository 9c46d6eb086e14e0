"""The migration that brings attribution to a database with experiences already stored: each
component is owned by the first agent that reported a call of it (environments own none)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from feedback.models import ComponentOwner
from tests.factories import ApiTokenFactory

if TYPE_CHECKING:
    from django.db.migrations.state import StateApps

pytestmark = pytest.mark.django_db(transaction=True)
NAME = "0012_experience_attribution"
MIGRATION = importlib.import_module(f"feedback.migrations.{NAME}")


def stored(apps: StateApps, owner: str, component: str, n: int) -> None:
    Experience = apps.get_model("feedback", "Experience")
    Experience.objects.bulk_create(
        Experience(
            experience_id=f"{owner}-{component}-{Experience.objects.count() + i}",
            owner=owner,
            component_name=component,
            reward=1.0,
            state="{}",
            action="{}",
            next_state="{}",
            ts=0.0,
            content_hash="",
        )
        for i in range(n)
    )


def test_each_component_is_owned_by_the_first_agent_that_reported_it_and_then_by_default() -> None:
    for name, role in (("gym", "environment"), ("first", "agent"), ("later", "agent")):
        ApiTokenFactory.create(name=name, role=role)
    call_command("migrate", "feedback", NAME[:4], verbosity=0)
    then = MigrationExecutor(connection).loader.project_state(("feedback", NAME)).apps
    try:
        stored(then, "token:gym", "search", 2)  # an environment reported it first: owns nothing
        stored(then, "token:first", "search", 1)
        stored(then, "token:later", "search", 3)
        stored(then, "token:later", "summarise", 1)
        stored(then, "token:gym", "translate", 1)  # reported by no agent: nobody's

        MIGRATION.owners_from_first_agent_calls(then, None)
    finally:
        call_command("migrate", verbosity=0)

    # Projects came later: what was there then is the `default` project's.
    owners = ComponentOwner.objects.values_list("project__slug", "component_name", "owner")
    assert set(owners) == {
        ("default", "search", "token:first"),
        ("default", "summarise", "token:later"),
    }
