"""Closing a client's buffers when the process is told to stop: the opt-in signal hook.

Containers (`docker stop`), systemd and Kubernetes stop a process with SIGTERM, and Python's
default for SIGTERM ends it at once, without `atexit` or `finally`: a buffer would lose all it
holds. `LearnClient.flush_on_signals()` and `AsyncLearnClient.flush_on_signals()` install a
handler that closes the client's buffers (one more try of everything waiting, what cannot be
sent reported) and then does what the signal did before: calls the handler it replaced, ignores
it if it was ignored, or ends the process by that signal, as the default would.
"""

from __future__ import annotations

import asyncio
import os
import signal
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable
    from types import FrameType

    Handler = Callable[[int, FrameType | None], Any] | int | None

STOP_SIGNALS = (signal.SIGTERM,)  # what containers, systemd and Kubernetes stop a process with


def as_before(signum: int, previous: Handler, frame: FrameType | None) -> None:
    """Do what `signum` did before the hook: its handler, nothing if ignored, else its default."""
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:  # the default (or a handler not set from Python)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def install(close: Callable[[], Any], signums: Iterable[int]) -> None:
    """On each of `signums`: `close()`, then as before. Call it from the main thread.

    A second signal while closing does not wait for the first: it goes on as before at once.
    """
    closing = False

    def handler(previous: Handler, signum: int, frame: FrameType | None) -> None:
        nonlocal closing
        if not closing:
            closing = True
            close()
        as_before(signum, previous, frame)

    for signum in signums:
        signal.signal(signum, partial(handler, signal.getsignal(signum)))


def install_in_loop(close: Callable[[], Awaitable[Any]], signums: Iterable[int]) -> None:
    """The same for the running event loop (POSIX): on each of `signums`, a task awaits
    `close()`, then puts the handler it replaced back and goes on as before."""
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[None]] = set()  # the closing task, kept until the process ends

    async def close_then(signum: int, previous: Handler) -> None:
        try:
            await close()
        finally:
            as_before_in_loop(signum, previous)

    def as_before_in_loop(signum: int, previous: Handler) -> None:
        loop.remove_signal_handler(signum)
        if previous is not None:
            signal.signal(signum, previous)
        as_before(signum, previous, None)

    def handler(signum: int, previous: Handler) -> None:
        if tasks:  # closing already
            as_before_in_loop(signum, previous)
        else:
            tasks.add(loop.create_task(close_then(signum, previous), name="learnportal-stopping"))

    for signum in signums:
        loop.add_signal_handler(signum, handler, signum, signal.getsignal(signum))
