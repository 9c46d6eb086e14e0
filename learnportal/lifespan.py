"""The ASGI lifespan: the server's start, and ending what would keep its shutdown waiting.

On SIGTERM or SIGINT uvicorn stops accepting, waits for the open responses to end (at most
`--timeout-graceful-shutdown`, then it cuts them) and only then sends `lifespan.shutdown`. An
A2E stream never ends by itself, so the app must hear of the signal before that: at
`lifespan.startup`, with the server's own signal handlers in place, it puts one in front of them
that wakes every open stream to end (each writes its last chunk: a clean end, and the agent
reconnects elsewhere) and then calls the server's handler. `lifespan.shutdown` does the same for
a server that sends it first. /ws/ sockets need nothing: uvicorn closes them itself (1012).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import FrameType

SIGNALS = (signal.SIGTERM, signal.SIGINT)

_stopping = threading.Event()
_waiting: set[asyncio.Event] = set()  # one a stream open in this process


def stopping() -> bool:
    """Whether this process is shutting down: a stream ends, and no new one opens."""
    return _stopping.is_set()


def watch(woken: asyncio.Event) -> None:
    """Set `woken` when the process begins to shut down (at once if it has begun)."""
    _waiting.add(woken)
    if stopping():
        woken.set()


def unwatch(woken: asyncio.Event) -> None:
    _waiting.discard(woken)


def begin_shutdown() -> None:
    """Wake every open stream to end. On the event loop's thread."""
    _stopping.set()
    for woken in list(_waiting):
        woken.set()


def _hook_signals(loop: asyncio.AbstractEventLoop) -> None:
    """Begin the shutdown on the loop, then let the server's own handler do what it does."""
    if threading.current_thread() is not threading.main_thread():
        return  # a server in a thread (the tests') handles no signals

    for number in SIGNALS:
        previous = signal.getsignal(number)

        def handler(signum: int, frame: FrameType | None, previous: Any = previous) -> None:
            loop.call_soon_threadsafe(begin_shutdown)
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(signum, signal.SIG_DFL)
                signal.raise_signal(signum)

        signal.signal(number, handler)


async def serve(receive: Any, send: Any) -> None:
    """The `lifespan` scope, for as long as the server runs."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            _stopping.clear()
            _hook_signals(asyncio.get_running_loop())
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            begin_shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return
