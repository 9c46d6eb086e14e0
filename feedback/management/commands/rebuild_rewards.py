from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from feedback.rewards import rewards_rebuild


class Command(BaseCommand):
    help = (
        "Recompute each component's reward sums, the buckets adapt reads, from the stored "
        "experiences: run it after changing LEARNPORTAL_ADAPT_WINDOW."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            rows = rewards_rebuild()
        self.stderr.write(f"Rebuilt {rows} reward buckets.")
