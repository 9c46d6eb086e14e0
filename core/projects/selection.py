"""Which project a request acts in: the principal's own, or one it names that it may enter.

A machine token acts in its one project and can name no other. A person acts in their home
project (their one project, else `default`) unless a request names another with `project=`;
a site admin may enter any project. A project the principal may not enter answers `not_found`,
exactly as one that does not exist, so that a name reveals nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from core.accounts.roles import Role
from core.projects.models import DEFAULT_PROJECT, Project
from learnportal_protocol.errors import detail, not_found

if TYPE_CHECKING:
    from core.accounts.principals import Principal

PROJECT_FIELD = "project"
# A project's id by slug: slugs never change and a project is never deleted while anything
# points at it, so this is dropped only when a project is saved or the tables are flushed
# (core.projects.signals).
_PKS: dict[str, int] = {}


def project_pk(slug: str) -> int:
    """The id of the project `slug`, which must exist (`default` is made if it is not there)."""
    if (pk := _PKS.get(slug)) is None:
        from core.projects.services import default_project

        # The id alone: a migration of another app may ask for it before the projects' table
        # has every column of today's model.
        pk = Project.objects.values_list("pk", flat=True).filter(slug=slug).first()
        if pk is None and slug == DEFAULT_PROJECT:
            pk = default_project().pk
        elif pk is None:
            raise Project.DoesNotExist(f"No project {slug!r}.")
        _PKS[slug] = pk
    return pk


def default_project_pk() -> int:
    """The id of the project `default`: where a row made without a credential's project lands
    (the models' default, and the migrations' for what was stored before projects)."""
    return project_pk(DEFAULT_PROJECT)


def forget_project_pks() -> None:
    _PKS.clear()


def _unknown(slug: str) -> Exception:
    return not_found(f"No project {slug!r}.", [detail([PROJECT_FIELD], "no such project")])


def principal_in(principal: Principal, slug: str | None) -> Principal:
    """`principal` acting in the project `slug` (its own when `slug` is empty or None)."""
    if not slug or slug == principal.project:
        return principal
    if not principal.is_human:
        raise _unknown(slug[:50])
    if principal.is_human and principal.role is Role.ADMIN:
        if not Project.objects.filter(slug=slug).exists():
            raise _unknown(slug[:50])
        return replace(principal, project=slug)
    role = dict(principal.seats).get(slug)
    if role is None:
        raise _unknown(slug[:50])
    return replace(principal, project=slug, role=role)


def visible_projects(principal: Principal) -> list[Project]:
    """The projects this principal may see: a site admin every one, a person theirs, a token
    its own."""
    projects = Project.objects.order_by("slug")
    if principal.is_human and principal.role is Role.ADMIN:
        return list(projects)
    if principal.is_human:
        return list(projects.filter(slug__in=[slug for slug, _ in principal.seats]))
    return list(projects.filter(slug=principal.project))
