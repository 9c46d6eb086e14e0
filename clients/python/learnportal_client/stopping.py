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
import weakref
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
    `close()` (and those of every other client hooked to this loop), then puts the handler it
    replaced back and goes on as before."""
    loop = asyncio.get_running_loop()
    hooks = _loop_hooks.setdefault(loop, {})
    for signum in signums:
        if signum not in hooks:
            hooks[signum] = _LoopHook(loop, signum)
        hooks[signum].closers.append(close)


class _LoopHook:
    """One signal's hook in one event loop: asyncio keeps one handler a signal, so a second
    client joins the first one's hook instead of replacing it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, signum: int) -> None:
        self.loop = loop
        self.signum = signum
        self.previous: Handler = signal.getsignal(signum)
        self.closers: list[Callable[[], Awaitable[Any]]] = []
        self.closing: asyncio.Task[None] | None = None  # kept until the process ends
        loop.add_signal_handler(signum, self.received)

    def received(self) -> None:
        if self.closing is None:
            self.closing = self.loop.create_task(self.close_then(), name="learnportal-stopping")
        else:  # a second signal while closing
            self.as_before()

    async def close_then(self) -> None:
        try:
            for close in self.closers:
                await close()
        finally:
            self.as_before()

    def as_before(self) -> None:
        _loop_hooks.get(self.loop, {}).pop(self.signum, None)
        self.loop.remove_signal_handler(self.signum)
        if self.previous is not None:
            signal.signal(self.signum, self.previous)
        as_before(self.signum, self.previous, None)


_loop_hooks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, _LoopHook]] = (
    weakref.WeakKeyDictionary()
)
