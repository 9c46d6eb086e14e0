"""Named stages of the request path, timed only while something records them.

`with stage("parse"):` around a step, or `@staged("INSERT rows")` on a function, names a stage.
Unless a caller records, a stage costs one context-variable read and times nothing. Inside
`with recording() as times:` (this thread or task only) each stage adds its exclusive seconds,
its time less that of the stages inside it, so that the stages of a call add up, and its count.

Nothing in the product records: the bench does (bench/live/inproc.py, bench/strategies/e2e.py),
and reads each stage by the label given here, so a stage moves with its code.
"""

from __future__ import annotations

import time
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from functools import wraps
from typing import TYPE_CHECKING, ParamSpec, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager

P = ParamSpec("P")
R = TypeVar("R")


class StageTimes:
    """What one recording collected: exclusive seconds and calls by stage label."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._open: list[list[float]] = []  # [start, seconds of the stages inside], innermost last

    @contextmanager
    def timing(self, label: str) -> Iterator[None]:
        frame = [time.perf_counter(), 0.0]
        self._open.append(frame)
        try:
            yield
        finally:
            self._open.pop()
            elapsed = time.perf_counter() - frame[0]
            self.seconds[label] = self.seconds.get(label, 0.0) + elapsed - frame[1]
            self.calls[label] = self.calls.get(label, 0) + 1
            if self._open:
                self._open[-1][1] += elapsed

    @property
    def total(self) -> float:
        return sum(self.seconds.values())


_RECORDING: ContextVar[StageTimes | None] = ContextVar("learnportal_stage_times", default=None)
_UNTIMED: AbstractContextManager[None] = nullcontext()


def stage(label: str) -> AbstractContextManager[None]:
    """A step of the request path, timed under `label` while a recording is on."""
    times = _RECORDING.get()
    return _UNTIMED if times is None else times.timing(label)


def staged(label: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """The whole function as a stage: for a function called once or a few times a request (a
    per-item function would pay its wrapper a thousand times a batch)."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @wraps(fn)
        def timed(*args: P.args, **kwargs: P.kwargs) -> R:
            times = _RECORDING.get()
            if times is None:
                return fn(*args, **kwargs)
            with times.timing(label):
                return fn(*args, **kwargs)

        return timed

    return decorate


@contextmanager
def recording() -> Iterator[StageTimes]:
    """Record the stages of what runs inside, in this thread or task, into a fresh StageTimes."""
    times = StageTimes()
    token = _RECORDING.set(times)
    try:
        yield times
    finally:
        _RECORDING.reset(token)
