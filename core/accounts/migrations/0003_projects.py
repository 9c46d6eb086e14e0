"""People's roles become memberships of the project `default`, and machine tokens belong to it."""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def into_default_project(apps: Any, schema_editor: Any) -> None:
    Project = apps.get_model("projects", "Project")
    Membership = apps.get_model("projects", "Membership")
    User = apps.get_model("accounts", "User")
    ApiToken = apps.get_model("accounts", "ApiToken")
    default, _ = Project.objects.get_or_create(slug="default", defaults={"name": "Default project"})
    Membership.objects.bulk_create(
        [
            Membership(project=default, user_id=pk, role=role)
            for pk, role in User.objects.filter(is_superuser=False).values_list("pk", "role")
            if role in ("annotator", "reviewer")
        ],
        ignore_conflicts=True,
    )
    ApiToken.objects.filter(user__isnull=True).update(project=default)


def roles_back(apps: Any, schema_editor: Any) -> None:
    Membership = apps.get_model("projects", "Membership")
    User = apps.get_model("accounts", "User")
    for membership in Membership.objects.filter(project__slug="default"):
        role = "reviewer" if membership.role == "manager" else membership.role
        User.objects.filter(pk=membership.user_id).update(role=role)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_username_unique_in_any_case"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="project",
            field=models.ForeignKey(
                blank=True,
                help_text="A machine token's one project; a personal token acts in its person's.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="tokens",
                to="projects.project",
            ),
        ),
        migrations.RunPython(into_default_project, roles_back),
        migrations.RemoveField(model_name="user", name="role"),
        migrations.AddConstraint(
            model_name="apitoken",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("project__isnull", False), ("user__isnull", True)),
                    models.Q(("project__isnull", True), ("user__isnull", False)),
                    _connector="OR",
                ),
                name="machine_token_has_one_project",
            ),
        ),
    ]
