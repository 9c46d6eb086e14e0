"""`manage.py webhooks_worker`: send the webhook outbox, beside the server (`make run`)."""

from __future__ import annotations

import logging
import signal
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, close_old_connections

from webhooks.delivery import client
from webhooks.retention import prune_finished
from webhooks.worker import Sender, deliver_due

logger = logging.getLogger(__name__)

# How often the worker prunes the delivery log (and once when it starts).
PRUNE_EVERY_SECONDS = 3600.0


class Command(BaseCommand):
    help = (
        "Deliver webhooks from the outbox and prune the old delivery log until stopped "
        "(--once: one round, then exit)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument("--poll", type=float, default=1.0, help="seconds between rounds")

    def handle(self, *args: Any, once: bool, poll: float, **options: Any) -> None:
        stopping = False

        def stop(*_: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        with client() as http:
            if once:
                deliver_due(http)
                prune_finished(time.time())
                return
            prune_at = time.monotonic()
            sender = Sender(http)
            try:
                while not stopping:
                    close_old_connections()
                    try:
                        if time.monotonic() >= prune_at:
                            prune_finished(time.time())
                            prune_at = time.monotonic() + PRUNE_EVERY_SECONDS
                        sender.step(poll)
                    except DatabaseError:  # the database away for a moment: try again soon
                        logger.exception("webhooks worker: the database is unavailable")
                        time.sleep(poll)
            finally:
                sender.close()  # the attempts in flight end within their timeout
