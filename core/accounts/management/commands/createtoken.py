from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.accounts.models import User
from core.accounts.roles import MACHINE_ROLES
from core.accounts.services import token_issue
from core.projects.models import DEFAULT_PROJECT
from learnportal_protocol.errors import LearnError


class Command(BaseCommand):
    help = "Create a bearer token and print it, alone, on stdout. It is not shown again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the token's name, or with --user the account's username")
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--role", choices=sorted(role.value for role in MACHINE_ROLES))
        group.add_argument(
            "--user", action="store_true", help="a personal token acting as this existing person"
        )
        parser.add_argument(
            "--project",
            default=DEFAULT_PROJECT,
            help="the project a machine token belongs to (a personal token acts in its person's)",
        )

    def handle(
        self, *args: Any, name: str, role: str | None, user: bool, project: str, **options: Any
    ) -> None:
        account = None
        if user:
            account = User.objects.filter(username=name).first()
            if account is None:
                raise CommandError(f"No user named {name!r}; create one with adduser first.")
            if project != DEFAULT_PROJECT:
                raise CommandError("A personal token acts in its person's projects: no --project.")
        try:
            _, raw = token_issue(name=name, role=role or "", user=account, project=project)
        except LearnError as error:
            raise CommandError(error.message) from None
        self.stdout.write(raw)
