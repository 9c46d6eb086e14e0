"""Evidence is attributed to who reported it (feedback.attribution): each component's owner, and
whether an experience's reporter may speak for its component. Experiences stored before stay
evidence, as they were; each component that agents reported is owned by the first of them."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from django.db import migrations, models
from django.db.models import Min

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps

TOKEN = "token:"  # an agent's principal key is "token:<name>"


def owners_from_first_agent_calls(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    experience = apps.get_model("feedback", "Experience")
    owner_model = apps.get_model("feedback", "ComponentOwner")
    agents = {
        TOKEN + name
        for name in apps.get_model("accounts", "ApiToken")
        .objects.filter(role="agent", user__isnull=True)
        .values_list("name", flat=True)
    }
    firsts = (
        experience.objects.exclude(component_name="")
        .filter(owner__in=agents)
        .values("component_name", "owner")
        .annotate(first=Min("id"))
    )
    owners: dict[str, tuple[int, str]] = {}
    for row in firsts:
        name, first = row["component_name"], row["first"]
        if name not in owners or first < owners[name][0]:
            owners[name] = (first, row["owner"])
    now = time.time()
    owner_model.objects.bulk_create(
        [owner_model(component_name=n, owner=o, claimed=now) for n, (_, o) in owners.items()],
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("feedback", "0011_turn_created_unindexed"),
        ("accounts", "0002_username_unique_in_any_case"),
    ]

    operations = [
        migrations.CreateModel(
            name="ComponentOwner",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("component_name", models.CharField(max_length=200, unique=True)),
                ("owner", models.CharField(max_length=160)),
                ("claimed", models.FloatField()),
            ],
        ),
        migrations.AddField(
            model_name="experience",
            name="attributed",
            field=models.BooleanField(default=True),
        ),
        migrations.RunPython(owners_from_first_agent_calls, migrations.RunPython.noop),
    ]
