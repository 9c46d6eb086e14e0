from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from feedback.exports import reward_samples, write_jsonl


class Command(BaseCommand):
    help = "Write reward model samples from every rated feedback (to_reward_sample) as JSON lines; '-' for stdout."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out", help="a .jsonl path, or - for stdout")

    def handle(self, *args: Any, out: str, **options: Any) -> None:
        if out == "-":
            write_jsonl(reward_samples(), sys.stdout.buffer)
            sys.stdout.flush()
            return
        with open(out, "wb") as stream:
            count = write_jsonl(reward_samples(), stream)
        self.stderr.write(f"Wrote {count} records to {out}.")
