from __future__ import annotations

import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from learnportal.accounts.models import ApiToken, User
from learnportal.accounts.roles import MACHINE_ROLES
from learnportal.protocol.models import NO_CONTROL, USERNAME_LENGTH

NAME_CHARACTERS = re.compile(NO_CONTROL)


class Command(BaseCommand):
    help = "Create a bearer token and print it, alone, on stdout. It is not shown again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the token's name, or with --user the account's username")
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--role", choices=sorted(role.value for role in MACHINE_ROLES))
        group.add_argument(
            "--user", action="store_true", help="a personal token acting as this existing person"
        )

    def handle(self, *args: Any, name: str, role: str | None, user: bool, **options: Any) -> None:
        if not name or len(name) > USERNAME_LENGTH or not NAME_CHARACTERS.fullmatch(name):
            raise CommandError(
                f"A token's name is 1 to {USERNAME_LENGTH} characters with no control characters."
            )
        if ApiToken.objects.filter(name=name).exists():
            raise CommandError(f"A token named {name!r} exists already; revoke it or pick a name.")
        if user:
            account = User.objects.filter(username=name).first()
            if account is None:
                raise CommandError(f"No user named {name!r}; create one with adduser first.")
            _, raw = ApiToken.issue(name=name, user=account)
        else:
            _, raw = ApiToken.issue(name=name, role=role or "")
        self.stdout.write(raw)
