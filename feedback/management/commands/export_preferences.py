from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from feedback.exports import preference_pairs, write_jsonl


class Command(BaseCommand):
    help = "Write DPO preference pairs from corrective feedback (to_preference_pair) as JSON lines; '-' for stdout."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out", help="a .jsonl path, or - for stdout")

    def handle(self, *args: Any, out: str, **options: Any) -> None:
        if out == "-":
            write_jsonl(preference_pairs(), sys.stdout.buffer)
            sys.stdout.flush()
            return
        with open(out, "wb") as stream:
            count = write_jsonl(preference_pairs(), stream)
        self.stderr.write(f"Wrote {count} records to {out}.")
