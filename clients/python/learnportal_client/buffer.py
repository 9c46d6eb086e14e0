"""Background buffers of feedback and experiences: `add_*` returns at once, a sender sends.

`LearnBuffer` (from `LearnClient.buffer()`) sends from a thread; `AsyncLearnBuffer` (from
`AsyncLearnClient.buffer()`) from a task of the running event loop; each knows its client only
as a `Sender` (`ports.py`). Both keep the rules of `Backlog`: they send when `max_items` are
waiting, when the oldest has waited `max_interval` seconds, on `flush()`, and on closing. An
item a buffer accepted is never dropped silently:

- `add_*` validates the item first, so what it accepts is sendable (a bad one raises `invalid`),
  and fixes its `ts` (when it was added, unless given), sent with it every time;
- a send that fails for a while (`rate_limited`, `unavailable`, no answer) keeps the items and
  tries again, with the same ids, so that nothing is stored twice;
- when `flush()` returns, every item added before it was acknowledged by the host (or refused:
  see below), so a process killed after `flush()` has lost nothing it flushed;
- items the host refuses (the batch's `details` name them; the others are sent again) and items
  still unsent when the buffer stops are `Unsent`: passed to `on_unsent` (by default, logged
  with their ids) and returned by `close()` / `aclose()`.

A `LearnBuffer` stops on `close()`, at the end of its `with` block, or at the interpreter's exit
(`atexit`), each with one more try of what is waiting. An `AsyncLearnBuffer` stops on `aclose()`
or at the end of its `async with` block, with one more try too; if its event loop ends first
(its task cancelled) or the interpreter exits, what is left is reported without a try.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from learnportal_client.backlog import Backlog, Batch, Unsent, failure, log_unsent, logger
from learnportal_client.closing import Closing
from learnportal_client.errors import LearnError
from learnportal_client.ports import AsyncSender, OnUnsent, Sender
from learnportal_client.wire import model_of, stamped
from learnportal_protocol.models import Experience, Feedback

if TYPE_CHECKING:
    from collections.abc import Mapping
    from contextlib import AbstractContextManager
    from types import TracebackType

    from learnportal_client.backlog import Item

__all__ = ["AsyncLearnBuffer", "LearnBuffer", "Unsent"]
Client = TypeVar("Client", bound=Sender | AsyncSender)


class _Buffer(ABC, Generic[Client]):
    """What both buffers do around their `Backlog`, under their own guard and wake-up."""

    def __init__(
        self,
        client: Client,
        *,
        max_items: int = 500,
        max_interval: float = 1.0,
        on_unsent: OnUnsent | None = None,
    ) -> None:
        self._client = client
        self._backlog = Backlog(max_items, max_interval)
        self._on_unsent = on_unsent or log_unsent
        self._stopped = False
        self._start()
        atexit.register(self._at_exit)

    @abstractmethod
    def _start(self) -> None:
        """Start the sender."""

    @abstractmethod
    def _guard(self) -> AbstractContextManager[Any]:
        """Held while the backlog is read or changed."""

    @abstractmethod
    def _wake(self) -> None:
        """Tell the sender and flush() that the backlog changed (called under the guard)."""

    @abstractmethod
    def _at_exit(self) -> None:
        """What the interpreter's exit does with this buffer (registered with atexit)."""

    def add_feedback(self, feedback: Feedback | Mapping[str, Any]) -> str:
        """Accept one feedback (validated now); its `feedback_id`."""
        item = stamped(model_of(Feedback, feedback))
        self._accept(item)
        return item.feedback_id

    def add_experience(self, experience: Experience | Mapping[str, Any]) -> str:
        """Accept one experience (validated now); its `experience_id`."""
        item = stamped(model_of(Experience, experience))
        self._accept(item)
        return item.experience_id

    @property
    def pending(self) -> int:
        """Items accepted and not yet stored or refused."""
        with self._guard():
            return self._backlog.pending

    @property
    def unsent(self) -> list[Unsent]:
        """Items refused or given up so far."""
        with self._guard():
            return list(self._backlog.unsent)

    def _accept(self, item: Item) -> None:
        with self._guard():
            if self._backlog.accept(item):
                self._wake()

    def _begin_close(self) -> bool:
        """Make everything due for a last try; False if the buffer has stopped already."""
        with self._guard():
            self._backlog.begin_close()
            self._wake()
            return not self._stopped

    def _settle(self, batch: Batch, error: LearnError | None) -> None:
        with self._guard():
            refused = self._backlog.settle(batch, error)
            self._wake()
        if refused:
            self._on_unsent(refused)

    def _stop(self) -> list[Unsent]:
        """Give up what is left (reported), once; every item not stored."""
        with self._guard():
            leftovers = [] if self._stopped else self._backlog.give_up()
            self._stopped = True
            unsent = list(self._backlog.unsent)
            self._wake()  # a flush() waiting returns: nothing is left to wait for
        atexit.unregister(self._at_exit)
        if leftovers:
            self._on_unsent(leftovers)
        return unsent


class LearnBuffer(_Buffer[Sender], Closing):
    """The blocking buffer: `with client.buffer() as buffer: buffer.add_experience({...})`."""

    def _start(self) -> None:
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="learnportal-buffer", daemon=True)
        self._thread.start()

    def flush(self, timeout: float | None = None) -> None:
        """Return once everything added so far is stored (or refused, and reported).

        Waits as long as the host is unavailable, unless `timeout` (seconds) ends it first
        (TimeoutError; nothing is lost, the buffer keeps trying).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            mark = self._backlog.ask_flush()
            self._cond.notify_all()
            while not self._backlog.flushed(mark):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError("the buffer is not flushed yet; it keeps trying")
                self._cond.wait(left)

    def close(self, timeout: float = 10.0) -> list[Unsent]:
        """Send what is waiting (one more try each), stop, and return every item not stored.

        Items still unsent after `timeout` seconds are reported through `on_unsent` too.
        """
        if self._begin_close():
            self._thread.join(timeout)
        return self._stop()

    def _guard(self) -> threading.Condition:
        return self._cond

    def _wake(self) -> None:
        self._cond.notify_all()

    def _at_exit(self) -> None:
        self.close()

    def _run(self) -> None:
        try:
            limit: int | None = self._client.batch_limit()
        except LearnError:
            limit = None
        with self._cond:
            self._backlog.use_host_limit(limit)
        while True:
            with self._cond:
                batch, wait = self._backlog.next_batch()
                while batch is None:
                    if self._backlog.closing:
                        return
                    self._cond.wait(wait)
                    batch, wait = self._backlog.next_batch()
            try:
                self._client.send(batch.request)
            except Exception as exc:  # a bug or an odd network failure: keep the items
                self._settle(batch, failure(exc))
            else:
                self._settle(batch, None)


class AsyncLearnBuffer(_Buffer[AsyncSender]):
    """The awaited buffer: `async with client.buffer() as buffer: buffer.add_experience({...})`.

    Made inside the running event loop, whose task sends; `add_*` are plain calls (they do not
    wait), made from that loop's thread.
    """

    def _start(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "an AsyncLearnBuffer sends from the running event loop: make it in async code"
            ) from None
        self._changed = asyncio.Event()
        self._task = loop.create_task(self._run(), name="learnportal-buffer")
        self._task.add_done_callback(self._task_done)

    async def __aenter__(self) -> AsyncLearnBuffer:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def flush(self, timeout: float | None = None) -> None:
        """Return once everything added so far is stored (or refused, and reported).

        Waits as long as the host is unavailable, unless `timeout` (seconds) ends it first
        (TimeoutError; nothing is lost, the buffer keeps trying).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        mark = self._backlog.ask_flush()
        self._wake()
        while not self._backlog.flushed(mark):
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError("the buffer is not flushed yet; it keeps trying")
            await self._change(left)

    async def aclose(self, timeout: float = 10.0) -> list[Unsent]:
        """Send what is waiting (one more try each), stop, and return every item not stored.

        Items still unsent after `timeout` seconds are reported through `on_unsent` too.
        """
        if self._begin_close():
            await asyncio.wait({self._task}, timeout=timeout)
            self._task.cancel()
            await asyncio.wait({self._task})
        return self._stop()

    def _guard(self) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()  # one thread: the loop's

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _at_exit(self) -> None:
        self._stop()  # no loop to send from any more

    async def _change(self, timeout: float | None) -> None:
        changed = self._changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), timeout)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        # Cancelled (the loop ended, or aclose() gave up waiting; perhaps before it ever ran)
        # or failed: what is left is reported now.
        if not task.cancelled() and task.exception() is not None:
            logger.error("learnportal_client: the buffer's task failed", exc_info=task.exception())
        self._stop()

    async def _run(self) -> None:
        try:
            limit: int | None = await self._client.batch_limit()
        except LearnError:
            limit = None
        self._backlog.use_host_limit(limit)
        while True:
            batch, wait = self._backlog.next_batch()
            while batch is None:
                if self._backlog.closing:
                    return
                await self._change(wait)
                batch, wait = self._backlog.next_batch()
            try:
                await self._client.send(batch.request)
            except Exception as exc:  # a bug or an odd network failure: keep the items
                self._settle(batch, failure(exc))
            else:
                self._settle(batch, None)
