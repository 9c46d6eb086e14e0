from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.accounts.roles import HUMAN_ROLES
from core.accounts.services import person_add
from core.projects.models import DEFAULT_PROJECT
from learnportal_protocol.errors import LearnError


class Command(BaseCommand):
    help = (
        "Create a person who logs in: an annotator, reviewer or manager of a project, "
        "or a site admin."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--role", required=True, choices=sorted(r.value for r in HUMAN_ROLES))
        parser.add_argument("--password", required=True)
        parser.add_argument(
            "--project",
            default=DEFAULT_PROJECT,
            help="the project the person is a member of with --role (an admin is in every one)",
        )

    def handle(
        self, *args: Any, name: str, role: str, password: str, project: str, **options: Any
    ) -> None:
        try:
            person_add(username=name, role=role, password=password, project=project)
        except LearnError as error:
            raise CommandError(error.message) from None
        where = "" if role == "admin" else f" in {project}"
        self.stdout.write(f"Created {role} {name}{where}.")
