"""A service that the host can do without for a while (Redis: the cache, the channel layer).

Its failures are reported once an outage, when the first call fails, and its return once, when
a call succeeds again: a log line a request would drown the log, and say nothing new. While it
is down, one call each RETRY_SECONDS tries it again and the others do without it at once, so
that a Redis that hangs (a network partition: each call waits for its timeout) costs one
timeout every few seconds, not one a call.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

RETRY_SECONDS = 5.0


class Outage:
    """Whether `service` is failing now, said once when an outage begins and once when it ends."""

    def __init__(self, service: str, meanwhile: str, logger: logging.Logger) -> None:
        self.service = service
        self.meanwhile = meanwhile  # what the host does until it is back
        self.logger = logger
        self.down = False
        self._retry_at = 0.0
        self._lock = threading.Lock()

    def skip(self) -> bool:
        """Whether to do without the service at once: it failed less than RETRY_SECONDS ago."""
        if not self.down:
            return False
        with self._lock:
            if time.monotonic() < self._retry_at:
                return True
            self._retry_at = time.monotonic() + RETRY_SECONDS  # this call is the one to try
            return False

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            began, self.down = not self.down, True
            self._retry_at = time.monotonic() + RETRY_SECONDS
        if began:
            self.logger.warning(
                "%s is unreachable: %s until it is back", self.service, self.meanwhile, exc_info=exc
            )

    def succeeded(self) -> None:
        if not self.down:  # the usual case: no lock taken
            return
        with self._lock:
            ended, self.down = self.down, False
        if ended:
            self.logger.warning("%s is back", self.service)

    def forget(self) -> None:
        """As if it had never failed (a test's leftovers)."""
        with self._lock:
            self.down, self._retry_at = False, 0.0
