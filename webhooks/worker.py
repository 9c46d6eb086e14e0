"""The worker's loop: several deliveries in flight at once, a few at most to any one endpoint.

One slow endpoint must not hold back another's deliveries (head-of-line blocking), so attempts
run on LEARNPORTAL_WEBHOOK_CONCURRENCY threads, at most LEARNPORTAL_WEBHOOK_PER_ENDPOINT of them
to one endpoint at once: the rest of that endpoint's due rows wait, and other endpoints' rows
take the free threads. The threads only send (no database); this loop claims each row as a
thread is free for it (so its lease starts with its attempt: webhooks.delivery),
and records each outcome as it comes back, in the thread that claimed it.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

from django.conf import settings

from webhooks.delivery import Outcome, claim_due, record, send

if TYPE_CHECKING:
    import httpx

    from webhooks.models import Delivery

logger = logging.getLogger(__name__)


class Sender:
    """This worker's attempts in flight, by endpoint, on a pool of threads."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.threads: int = settings.LEARNPORTAL_WEBHOOK_CONCURRENCY
        self.per_endpoint: int = settings.LEARNPORTAL_WEBHOOK_PER_ENDPOINT
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="webhook")
        self.in_flight: dict[Future[Outcome], Delivery] = {}
        self.per: Counter[int] = Counter()

    def busy_endpoints(self) -> list[int]:
        return [pk for pk, count in self.per.items() if count >= self.per_endpoint]

    def start_due(self, now: float | None, skip: set[int] | None) -> int:
        """Claim and start what is due while a thread is free: how many it started."""
        started = 0
        while len(self.in_flight) < self.threads:
            delivery = claim_due(
                time.time() if now is None else now,
                skip=skip or (),
                busy=self.busy_endpoints(),
            )
            if delivery is None:
                break
            if skip is not None:
                skip.add(delivery.pk)
            self.in_flight[self.pool.submit(send, delivery, self.http)] = delivery
            self.per[delivery.endpoint_id] += 1
            started += 1
        return started

    def finish(self, timeout: float | None) -> None:
        """Wait up to `timeout` for attempts to end, and record those that did."""
        done, _ = wait(self.in_flight, timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            delivery = self.in_flight.pop(future)
            self.per[delivery.endpoint_id] -= 1
            try:
                outcome = future.result()
            except Exception as exc:  # a defect, not the receiver's answer: a failed attempt
                logger.exception("webhook %s: the attempt failed", delivery.message_id)
                outcome = Outcome(None, f"worker error: {type(exc).__name__}")
            record(delivery, outcome, time.time())
            if not outcome.ok:
                logger.info(
                    "webhook %s to %s: %s", delivery.message_id, delivery.endpoint_id, outcome
                )

    def step(self, poll: float) -> None:
        """The worker's heartbeat: start what is due as threads free up, and wait for one to
        end, or `poll` seconds, before it looks again."""
        self.start_due(None, None)
        if self.in_flight:
            self.finish(poll)
        else:
            time.sleep(poll)

    def close(self) -> None:
        """Record what is still in flight (each attempt ends within its timeout), then stop."""
        while self.in_flight:
            self.finish(None)
        self.pool.shutdown()


def deliver_due(http: httpx.Client, *, now: float | None = None) -> int:
    """One round of the worker: attempt each row due (and each that falls due meanwhile) once,
    until none is left and none is in flight; how many it attempted."""
    sender, attempted = Sender(http), set[int]()
    try:
        while sender.start_due(now, attempted) or sender.in_flight:
            sender.finish(None)
    finally:
        sender.close()
    return len(attempted)
