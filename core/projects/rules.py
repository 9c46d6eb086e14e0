"""A project's queue rules as they hold now: its own setting, else the portal's.

Read from the project's row each time rather than cached: a manager's change then counts from
the next request in every process, for one small query by primary key.
"""

from __future__ import annotations

from django.conf import settings

from core.projects.models import Project


def lease_seconds(project_id: int | None) -> int:
    """How long a lease on one of the project's turns lasts (LEARNPORTAL_LEASE_SECONDS unless
    the project sets its own; a row not yet saved has no project of its own)."""
    own = (
        None
        if project_id is None
        else Project.objects.filter(pk=project_id).values_list("lease_seconds", flat=True).first()
    )
    return int(own or settings.LEARNPORTAL_LEASE_SECONDS)
