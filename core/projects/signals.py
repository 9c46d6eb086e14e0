"""A membership made, changed or ended counts from the person's next request or frame: their
cached principal is dropped, in every process (core.accounts.credentials)."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from core.accounts.credentials import principals
from core.projects.models import DEFAULT_PROJECT, Membership, Project
from core.projects.selection import forget_project_pks


@receiver([post_save, post_delete], sender=Membership)
def _membership_changed(sender: type[Membership], instance: Membership, **kwargs: Any) -> None:
    user_id = instance.user_id
    principals.drop(user_id=user_id)
    transaction.on_commit(lambda: principals.changed(user_id=user_id))


@receiver([post_save, post_delete], sender=Project)
def _project_changed(sender: type[Project], instance: Project, **kwargs: Any) -> None:
    forget_project_pks()


def default_project_made(**kwargs: Any) -> None:
    """After `migrate` (and a test's flush, which empties every table): `default` is there."""
    from core.projects.services import default_project

    forget_project_pks()
    using = kwargs.get("using", DEFAULT_DB_ALIAS)
    if Project._meta.db_table not in connections[using].introspection.table_names():
        return
    # Asked first by `exists`, which reads no column: a migration back to before one of today's
    # columns leaves a table that today's model could not read.
    if not Project.objects.using(using).filter(slug=DEFAULT_PROJECT).exists():
        default_project()
