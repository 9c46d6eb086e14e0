from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.projects.models import SLUG_RULE
from core.projects.services import project_add
from learnportal_protocol.errors import LearnError


class Command(BaseCommand):
    help = (
        "Make a project: a team's space with its own people, rubric, turns and learning "
        "(as a site admin does on /projects/)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help=f"its name in URLs and commands: {SLUG_RULE}")
        parser.add_argument("--name", default="", help="what the portal calls it (the slug)")

    def handle(self, *args: Any, slug: str, name: str, **options: Any) -> None:
        try:
            project = project_add(slug=slug, name=name or slug)
        except LearnError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"Made the project {project.slug}.")
