from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.accounts.services import token_revoke_named
from learnportal_protocol.errors import LearnError


class Command(BaseCommand):
    help = "Revoke a bearer token by name: it stops working at once (open sockets within a second)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args: Any, name: str, **options: Any) -> None:
        try:
            token_revoke_named(name=name)
        except LearnError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"Revoked {name}.")
