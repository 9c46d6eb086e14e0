"""The memory a server holds, read from /proc while it works: its process and every child."""

from __future__ import annotations

import threading
from pathlib import Path


def tree_rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its descendants, in MB (0 for a process gone)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        total += next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0
        )
        pending.extend(int(child) for child in children)
    return total / 1024


class PeakRss:
    """The largest `tree_rss_mb` of a process, sampled every `every` seconds while in use."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        self.pid, self.every, self.peak = pid, every, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss_mb(self.pid))
            self._stop.wait(self.every)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.peak = max(self.peak, tree_rss_mb(self.pid))
