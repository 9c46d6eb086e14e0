from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from learnportal.accounts.models import User
from learnportal.accounts.roles import HUMAN_ROLES, Role


class Command(BaseCommand):
    help = "Create a person who logs in: annotator, reviewer or admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--role", required=True, choices=sorted(r.value for r in HUMAN_ROLES))
        parser.add_argument("--password", required=True)

    def handle(self, *args: Any, name: str, role: str, password: str, **options: Any) -> None:
        if User.objects.filter(username=name).exists():
            raise CommandError(f"A user named {name!r} exists already.")
        is_admin = role == Role.ADMIN
        User.objects.create_user(
            username=name, password=password, role=role, is_staff=is_admin, is_superuser=is_admin
        )
        self.stdout.write(f"Created {role} {name}.")
