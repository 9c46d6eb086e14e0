"""A background buffer of feedback and experiences: `add` returns at once, a thread sends.

It sends when `max_items` are waiting, when the oldest has waited `max_interval` seconds, on
`flush()`, and on `close()` (a `with` block's end, or the interpreter's exit through `atexit`).
An item it accepted is never dropped silently:

- `add_*` validates the item first, so what it accepts is sendable (a bad one raises `invalid`);
- a send that fails for a while (`rate_limited`, `unavailable`, no answer) keeps the items and
  tries again, with the same ids, so that nothing is stored twice;
- when `flush()` returns, every item added before it was acknowledged by the host (or refused:
  see below), so a process killed after `flush()` has lost nothing it flushed;
- items the host refuses (the batch's `details` name them; the others are sent again) and items
  still unsent when `close()` gives up are `Unsent`: passed to `on_unsent` (by default, logged
  with their ids) and returned by `close()`.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from learnportal.protocol.messages import Envelope, LearnExperienceRequest, LearnFeedbackRequest
from learnportal.protocol.models import Experience, Feedback
from learnportal_client.errors import UNREACHABLE, LearnError
from learnportal_client.wire import build, item_json, model_of

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import TracebackType

    from learnportal_client.client import LearnClient

logger = logging.getLogger("learnportal_client")
Item = Feedback | Experience
FIELDS = {Feedback: "feedbacks", Experience: "experiences"}
MAX_BACKOFF = 30.0


@dataclass(frozen=True)
class Unsent:
    """An accepted item the host did not store: `error` is its refusal, None if never answered.

    An item reported with no answer may still arrive (a send outlived `close()`'s timeout);
    sending it again is safe, since its id makes the host store it once.
    """

    kind: str  # "feedbacks" or "experiences"
    item: dict[str, Any]  # its JSON, as it would have been sent
    error: LearnError | None

    @property
    def item_id(self) -> str:
        return str(self.item.get("feedback_id") or self.item.get("experience_id") or "")


def log_unsent(unsent: list[Unsent]) -> None:
    ids = ", ".join(u.item_id for u in unsent[:20]) + (" ..." if len(unsent) > 20 else "")
    logger.warning("learnportal_client: %d items were not stored: %s", len(unsent), ids)


@dataclass
class _Waiting:
    seq: int
    item: Item
    since: float


class LearnBuffer:
    def __init__(
        self,
        client: LearnClient,
        *,
        max_items: int = 500,
        max_interval: float = 1.0,
        on_unsent: Callable[[list[Unsent]], None] | None = None,
    ) -> None:
        if max_items < 1 or max_interval <= 0:
            raise ValueError("max_items must be at least 1 and max_interval above 0")
        self._client = client
        self._max_items = max_items
        self._max_interval = max_interval
        self._on_unsent = on_unsent or log_unsent
        self._cond = threading.Condition()
        self._queues: dict[str, list[_Waiting]] = {"feedbacks": [], "experiences": []}
        self._in_flight: list[_Waiting] = []
        self._seq = 0
        self._unsent: list[Unsent] = []
        self._flush_upto = 0
        self._hold_until = 0.0
        self._failures = 0
        self._closing = False
        self._closed = False
        self._limit = max_items
        self._thread = threading.Thread(target=self._run, name="learnportal-buffer", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    def __enter__(self) -> LearnBuffer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- the caller's side -------------------------------------------------------------------------

    def add_feedback(self, feedback: Feedback | Mapping[str, Any]) -> str:
        """Accept one feedback (validated now); its `feedback_id`."""
        item = model_of(Feedback, feedback)
        self._add(item)
        return item.feedback_id

    def add_experience(self, experience: Experience | Mapping[str, Any]) -> str:
        """Accept one experience (validated now); its `experience_id`."""
        item = model_of(Experience, experience)
        self._add(item)
        return item.experience_id

    def flush(self, timeout: float | None = None) -> None:
        """Return once everything added so far is stored (or refused, and reported).

        Waits as long as the host is unavailable, unless `timeout` (seconds) ends it first
        (TimeoutError; nothing is lost, the buffer keeps trying).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            target = self._seq
            self._flush_upto = max(self._flush_upto, target)
            self._cond.notify_all()
            while self._oldest_waiting() <= target:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError("the buffer is not flushed yet; it keeps trying")
                self._cond.wait(left)

    @property
    def pending(self) -> int:
        """Items accepted and not yet stored or refused."""
        with self._cond:
            return sum(len(q) for q in self._queues.values()) + len(self._in_flight)

    @property
    def unsent(self) -> list[Unsent]:
        """Items the host refused so far."""
        with self._cond:
            return list(self._unsent)

    def close(self, timeout: float = 10.0) -> list[Unsent]:
        """Send what is waiting (one more try each), stop, and return every item not stored.

        Items still unsent after `timeout` seconds are reported through `on_unsent` too.
        """
        with self._cond:
            if self._closed:
                return list(self._unsent)
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
        with self._cond:
            self._closed = True
            left = [w for q in self._queues.values() for w in q] + self._in_flight
            for queue in self._queues.values():
                queue.clear()
            self._in_flight = []
            leftovers = [Unsent(FIELDS[type(w.item)], item_json(w.item), None) for w in left]
            self._unsent.extend(leftovers)
            unsent = list(self._unsent)
        atexit.unregister(self.close)
        if leftovers:
            self._on_unsent(leftovers)
        return unsent

    # --- the sender thread ---------------------------------------------------------------------------

    def _add(self, item: Item) -> None:
        with self._cond:
            if self._closing:
                raise RuntimeError("the buffer is closed")
            self._seq += 1
            self._queues[FIELDS[type(item)]].append(_Waiting(self._seq, item, time.monotonic()))
            if len(self._queues[FIELDS[type(item)]]) >= self._max_items:
                self._cond.notify_all()

    def _oldest_waiting(self) -> float:
        seqs = [w.seq for q in self._queues.values() for w in q] + [w.seq for w in self._in_flight]
        return min(seqs, default=float("inf"))

    def _due(self) -> tuple[str | None, float | None]:
        """The queue to send now, or None and how long to wait before looking again."""
        now = time.monotonic()
        if not self._closing and now < self._hold_until:
            return None, self._hold_until - now
        waits = []
        for field, queue in self._queues.items():
            if not queue:
                continue
            if (
                self._closing
                or len(queue) >= self._max_items
                or queue[0].seq <= self._flush_upto
                or now - queue[0].since >= self._max_interval
            ):
                return field, None
            waits.append(self._max_interval - (now - queue[0].since))
        return None, min(waits, default=None)

    def _run(self) -> None:
        try:
            self._limit = min(self._max_items, self._client.batch_limit())
        except LearnError:  # no discovery yet: a `too_large` answer halves the batch instead
            self._limit = self._max_items
        while True:
            with self._cond:
                field, wait = self._due()
                while field is None:
                    if self._closing:
                        return
                    self._cond.wait(wait)
                    field, wait = self._due()
                batch = self._queues[field][: self._limit]
                del self._queues[field][: self._limit]
                self._in_flight = batch
            refused = self._send(field, batch)
            self._settle(field, batch, refused)

    def _send(self, field: str, batch: list[_Waiting]) -> LearnError | None:
        request: Envelope
        if field == "feedbacks":
            request = build(LearnFeedbackRequest, feedbacks=[w.item for w in batch])
        else:
            request = build(LearnExperienceRequest, experiences=[w.item for w in batch])
        try:
            self._client.send(request)
        except LearnError as error:
            return error
        except Exception as exc:  # a bug or an odd network failure: keep the items, try later
            logger.exception("learnportal_client: sending a batch failed")
            return LearnError(UNREACHABLE, repr(exc))
        return None

    def _settle(self, field: str, batch: list[_Waiting], error: LearnError | None) -> None:
        refused: list[Unsent] = []
        with self._cond:
            self._in_flight = []
            if error is None:
                self._failures = 0
            elif error.retryable or error.code == UNREACHABLE:
                self._retry_later(field, batch)
            elif error.code == "too_large" and len(batch) > 1:
                self._limit = max(1, len(batch) // 2)
                self._queues[field][:0] = batch
            else:
                named = error.item_indexes(field)
                bad = [w for i, w in enumerate(batch) if i in named or not named]
                good = [w for w in batch if w not in bad]
                self._queues[field][:0] = good  # the rest of a refused batch goes again at once
                refused = [Unsent(field, item_json(w.item), error) for w in bad]
                self._unsent.extend(refused)
            self._cond.notify_all()
        if refused:
            self._on_unsent(refused)

    def _retry_later(self, field: str, batch: list[_Waiting]) -> None:
        if self._closing:  # the last try failed too: close() reports them
            self._in_flight = batch
            self._closing_left(field, batch)
            return
        self._queues[field][:0] = batch
        self._failures += 1
        self._hold_until = time.monotonic() + min(
            MAX_BACKOFF, self._max_interval * 2 ** (self._failures - 1)
        )

    def _closing_left(self, field: str, batch: list[_Waiting]) -> None:
        # Stop trying: everything still queued, and this batch, stays for close() to report.
        self._in_flight = []
        self._queues[field][:0] = batch
        for queue in self._queues.values():
            self._in_flight.extend(queue)
            queue.clear()
