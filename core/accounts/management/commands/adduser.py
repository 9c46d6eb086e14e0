from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.accounts.roles import HUMAN_ROLES
from core.accounts.services import person_add
from learnportal_protocol.errors import LearnError


class Command(BaseCommand):
    help = "Create a person who logs in: annotator, reviewer or admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--role", required=True, choices=sorted(r.value for r in HUMAN_ROLES))
        parser.add_argument("--password", required=True)

    def handle(self, *args: Any, name: str, role: str, password: str, **options: Any) -> None:
        try:
            person_add(username=name, role=role, password=password)
        except LearnError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"Created {role} {name}.")
