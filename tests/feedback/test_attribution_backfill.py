"""The migration that brings attribution to a database with experiences already stored: each
component is owned by the first agent that reported a call of it (environments own none)."""

from __future__ import annotations

import importlib

from django.apps import apps

from feedback.models import ComponentOwner, Experience
from tests.factories import ApiTokenFactory

MIGRATION = importlib.import_module("feedback.migrations.0012_experience_attribution")


def stored(owner: str, component: str, n: int) -> None:
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


def test_each_component_is_owned_by_the_first_agent_that_reported_it(db: None) -> None:
    for name, role in (("gym", "environment"), ("first", "agent"), ("later", "agent")):
        ApiTokenFactory.create(name=name, role=role)
    stored("token:gym", "search", 2)  # an environment reported it first: it owns nothing
    stored("token:first", "search", 1)
    stored("token:later", "search", 3)
    stored("token:later", "summarise", 1)
    stored("token:gym", "translate", 1)  # reported by no agent: nobody's

    MIGRATION.owners_from_first_agent_calls(apps, None)

    owners = dict(ComponentOwner.objects.values_list("component_name", "owner"))
    assert owners == {"search": "token:first", "summarise": "token:later"}
