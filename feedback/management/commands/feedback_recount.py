from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from feedback.counters import counters_rebuild
from feedback.moments import moments_rebuild
from feedback.question_sums import question_sums_rebuild


class Command(BaseCommand):
    help = (
        "Recount what the feedback service keeps at ingest from the stored feedback: "
        "agreement's per-(turn, dimension) moments and per-dimension totals, its sums per "
        "(turn, question) and per question, and the "
        "overview's counters. For rows written before these were kept, or around the service "
        "(a bulk load); repeating it changes nothing."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            units = moments_rebuild()
            counted = counters_rebuild()
        questions = question_sums_rebuild()
        self.stderr.write(
            f"Recounted {units} agreement units, {questions} question units; counters {counted}."
        )
