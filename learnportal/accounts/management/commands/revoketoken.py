from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from learnportal.accounts.models import ApiToken


class Command(BaseCommand):
    help = "Revoke a bearer token by name: it stops working at once (open sockets within a second)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args: Any, name: str, **options: Any) -> None:
        token = ApiToken.objects.filter(name=name, revoked_at__isnull=True).first()
        if token is None:
            raise CommandError(f"No active token named {name!r}.")
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        self.stdout.write(f"Revoked {name}.")
