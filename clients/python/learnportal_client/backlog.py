"""What a background buffer holds, and every rule of it, with no thread and no event loop.

The blocking `LearnBuffer` (a thread) and the awaited `AsyncLearnBuffer` (a task) each hold one
`Backlog`, and only wait and send; the rules are here once:

- a kind of item (feedbacks, experiences) is due when `max_items` of it wait, when its oldest
  has waited `max_interval` seconds, when a flush asked for it, or when the buffer is closing;
- a batch is at most the host's `max_batch` (and `max_items`), halved on `too_large`;
- a batch that got no answer, `rate_limited` or `unavailable` goes back to the front, the same
  items with the same ids, and the backlog holds back: the host's `retry_after` if longer, else
  doubling from `max_interval`, at most MAX_BACKOFF; once closing, it stops instead, and
  `give_up` reports what is left;
- a refused batch: the items its `details` name (all of them, if it names none) are `Unsent`;
  the others go again at once.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from learnportal_client.errors import UNREACHABLE, LearnError, UnreachableError
from learnportal_client.wire import build, item_json
from learnportal_protocol.messages import Envelope, LearnExperienceRequest, LearnFeedbackRequest
from learnportal_protocol.models import Experience, Feedback

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
    """The default `on_unsent`: a warning naming the items."""
    ids = ", ".join(u.item_id for u in unsent[:20]) + (" ..." if len(unsent) > 20 else "")
    logger.warning("learnportal_client: %d items were not stored: %s", len(unsent), ids)


def failure(exc: Exception) -> LearnError:
    """What a send that raised means to the backlog: a LearnError, else no answer (kept)."""
    if isinstance(exc, LearnError):
        return exc
    logger.error("learnportal_client: sending a batch failed", exc_info=exc)
    return UnreachableError(repr(exc))


@dataclass
class _Waiting:
    seq: int
    item: Item
    since: float


@dataclass(frozen=True)
class Batch:
    """Items of one kind taken to be sent together."""

    field: str
    waiting: list[_Waiting]

    @property
    def request(self) -> Envelope:
        items = [w.item for w in self.waiting]
        if self.field == "feedbacks":
            return build(LearnFeedbackRequest, feedbacks=items)
        return build(LearnExperienceRequest, experiences=items)

    def unsent(self, error: LearnError | None) -> list[Unsent]:
        return [Unsent(self.field, item_json(w.item), error) for w in self.waiting]


class Backlog:
    """The items accepted and not yet stored or refused, in order, and what to send next."""

    def __init__(self, max_items: int, max_interval: float) -> None:
        if max_items < 1 or max_interval <= 0:
            raise ValueError("max_items must be at least 1 and max_interval above 0")
        self.max_items = max_items
        self.max_interval = max_interval
        self.limit = max_items
        self.closing = False
        self.unsent: list[Unsent] = []  # every item refused or given up, in order
        self._queues: dict[str, list[_Waiting]] = {field: [] for field in FIELDS.values()}
        self._in_flight: list[_Waiting] = []
        self._seq = 0
        self._flush_upto = 0
        self._hold_until = 0.0
        self._failures = 0
        self._stopped = False  # a last try failed while closing, or it gave up
        self._given_up = False

    # --- the caller's side -------------------------------------------------------------------

    def accept(self, item: Item) -> bool:
        """Queue one item; True if its kind is full now (the sender should look at once)."""
        if self.closing:
            raise RuntimeError("the buffer is closed")
        self._seq += 1
        queue = self._queues[FIELDS[type(item)]]
        queue.append(_Waiting(self._seq, item, time.monotonic()))
        return len(queue) >= self.max_items

    def ask_flush(self) -> int:
        """Make everything accepted so far due; the mark that `flushed` checks."""
        self._flush_upto = self._seq
        return self._seq

    def flushed(self, mark: int) -> bool:
        """Whether every item up to `mark` is stored, refused or given up."""
        waiting = [w.seq for q in self._queues.values() for w in q]
        return min(waiting + [w.seq for w in self._in_flight], default=mark + 1) > mark

    @property
    def pending(self) -> int:
        return sum(len(q) for q in self._queues.values()) + len(self._in_flight)

    def begin_close(self) -> None:
        """Everything waiting is due now, one more try each, whatever the hold."""
        self.closing = True

    # --- the sender's side -------------------------------------------------------------------

    def use_host_limit(self, max_batch: int | None) -> None:
        """The host's `max_batch`, or None where discovery failed (`too_large` halves instead)."""
        self.limit = self.max_items if max_batch is None else min(self.max_items, max_batch)

    def next_batch(self) -> tuple[Batch | None, float | None]:
        """Take the batch to send now; or None, and how long until one may be due (None: not
        before a change). Closing, None means that nothing more will be sent."""
        if self._stopped:
            return None, None
        now = time.monotonic()
        if not self.closing and now < self._hold_until:
            return None, self._hold_until - now
        waits = []
        for field, queue in self._queues.items():
            if not queue:
                continue
            oldest = queue[0]
            if (
                self.closing
                or len(queue) >= self.max_items
                or oldest.seq <= self._flush_upto
                or now - oldest.since >= self.max_interval
            ):
                return self._take(field), None
            waits.append(self.max_interval - (now - oldest.since))
        return None, min(waits, default=None)

    def settle(self, batch: Batch, error: LearnError | None) -> list[Unsent]:
        """The answer to `batch`: None if stored. The items refused now, to report."""
        if self._given_up:  # a send that outlived close(): its items are reported already
            return []
        self._in_flight = []
        queue = self._queues[batch.field]
        if error is None:
            self._failures = 0
            return []
        if error.retryable or error.code == UNREACHABLE:
            queue[:0] = batch.waiting
            self._hold_back(error.retry_after or 0.0)
            return []
        if error.code == "too_large" and len(batch.waiting) > 1:
            self.limit = max(1, len(batch.waiting) // 2)
            queue[:0] = batch.waiting
            return []
        named = error.item_indexes(batch.field)
        bad = [w for i, w in enumerate(batch.waiting) if i in named or not named]
        queue[:0] = [w for w in batch.waiting if w not in bad]
        refused = Batch(batch.field, bad).unsent(error)
        self.unsent.extend(refused)
        return refused

    def give_up(self) -> list[Unsent]:
        """Stop: every item still waiting or in flight is `Unsent` (no answer); those items."""
        self.closing = self._stopped = self._given_up = True
        left = sorted(
            [w for q in self._queues.values() for w in q] + self._in_flight, key=lambda w: w.seq
        )
        for queue in self._queues.values():
            queue.clear()
        self._in_flight = []
        leftovers = [Unsent(FIELDS[type(w.item)], item_json(w.item), None) for w in left]
        self.unsent.extend(leftovers)
        return leftovers

    def _take(self, field: str) -> Batch:
        queue = self._queues[field]
        self._in_flight = queue[: self.limit]
        del queue[: self.limit]
        return Batch(field, self._in_flight)

    def _hold_back(self, retry_after: float) -> None:
        if self.closing:  # the last try failed too: the rest waits for give_up()
            self._stopped = True
            return
        self._failures += 1
        backoff = min(MAX_BACKOFF, self.max_interval * 2 ** (self._failures - 1))
        self._hold_until = time.monotonic() + max(backoff, retry_after)
