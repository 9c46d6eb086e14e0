from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from feedback.models import Turn
from feedback.queue_state import turns_tally

CHUNK = 5000


class Command(BaseCommand):
    help = (
        "Recount every turn's ratings still needed and priority from its stored feedback: run it "
        "after changing LEARNPORTAL_RATINGS_PER_TURN."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        after, done = 0, 0
        while True:
            rows = list(
                Turn.objects.filter(pk__gt=after)
                .order_by("pk")
                .values_list("pk", "correlation_id")[:CHUNK]
            )
            if not rows:
                break
            with transaction.atomic():
                turns_tally(key for _, key in rows)
            after, done = rows[-1][0], done + len(rows)
        self.stderr.write(f"Recounted {done} turns.")
