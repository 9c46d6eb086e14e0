from __future__ import annotations

from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
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
        person = User(username=name, role=role, is_staff=is_admin, is_superuser=is_admin)
        try:
            person.full_clean(exclude=["password"])
            validate_password(password, person)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        person.set_password(password)
        person.save()
        self.stdout.write(f"Created {role} {name}.")
