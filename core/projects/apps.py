from __future__ import annotations

from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "core.projects"
    label = "projects"
    verbose_name = "Projects and memberships"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from core.projects import signals

        post_migrate.connect(signals.default_project_made, sender=self)
