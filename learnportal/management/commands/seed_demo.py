from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from feedback.models import Turn
from learnportal import demo


class Command(BaseCommand):
    help = (
        "Load demo people, turns to rate, components with calls and a plan to review. Safe twice."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--if-empty", action="store_true", help="only when there is no turn")
        parser.add_argument("--logins", action="store_true", help="print the demo logins and stop")

    def handle(self, *args: Any, if_empty: bool, logins: bool, **options: Any) -> None:
        if logins:
            for username, role in demo.DEMO_USERS:
                self.stdout.write(f"  {role.value:<10} {username} / {demo.DEMO_PASSWORD}")
            return
        if if_empty and Turn.objects.exists():
            return
        with transaction.atomic():
            demo.seed_demo()
        self.stdout.write("Demo data loaded.")
