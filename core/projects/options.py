"""The `--project SLUG` option of the management commands that act in one project."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.management.base import CommandError

from core.projects.models import DEFAULT_PROJECT, Project
from core.projects.selection import project_pk

if TYPE_CHECKING:
    from django.core.management.base import CommandParser


def add_project_option(parser: CommandParser, what: str) -> None:
    """`--project SLUG`, `default` unless given; `what` says what the command takes of it."""
    parser.add_argument(
        "--project",
        default=DEFAULT_PROJECT,
        help=f"the project whose {what} (default: {DEFAULT_PROJECT})",
    )


def project_option(slug: str) -> int:
    """The id of the project `--project` names; a `CommandError` naming the option if none."""
    if slug != DEFAULT_PROJECT and not Project.objects.filter(slug=slug).exists():
        raise CommandError(f"--project: no project {slug[:50]!r}")
    return project_pk(slug)
