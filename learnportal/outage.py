"""A service that the host can do without for a while (Redis: the cache, the channel layer).

Its failures are reported once an outage, when the first call fails, and its return once, when
a call succeeds again: a log line a request would drown the log, and say nothing new.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging


class Outage:
    """Whether `service` is failing now, said once when an outage begins and once when it ends."""

    def __init__(self, service: str, meanwhile: str, logger: logging.Logger) -> None:
        self.service = service
        self.meanwhile = meanwhile  # what the host does until it is back
        self.logger = logger
        self.down = False
        self._lock = threading.Lock()

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            began, self.down = not self.down, True
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
