"""Where the clients and the buffers meet, as Protocols, so neither module imports the other.

A buffer sends through a `Sender` (a `LearnClient`, or anything with its `send` and
`batch_limit`: a `LearnSession` is one too) and never sees the client's class; a client knows
the buffers made from it only as `Buffer`s, which it closes before itself. So `client.py`
imports `buffer.py`, and `buffer.py` (with `backlog.py`) imports no client.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from learnportal_client.backlog import Unsent
    from learnportal_protocol.messages import Envelope, Response

# Told the items a buffer could not store (refused, or given up on); by default they are logged.
OnUnsent = Callable[["list[Unsent]"], None]


class Sender(Protocol):
    """What a `LearnBuffer` sends through."""

    def send(self, request: Envelope) -> Response: ...

    def batch_limit(self) -> int: ...


class AsyncSender(Protocol):
    """What an `AsyncLearnBuffer` sends through."""

    async def send(self, request: Envelope) -> Response: ...

    async def batch_limit(self) -> int: ...


class Buffer(Protocol):
    """What a `LearnClient` does with a buffer made from it: close it, before the client."""

    def close(self, timeout: float = 10.0) -> list[Unsent]: ...


class AsyncBuffer(Protocol):
    """What an `AsyncLearnClient` does with a buffer made from it: close it, before the client."""

    async def aclose(self, timeout: float = 10.0) -> list[Unsent]: ...
