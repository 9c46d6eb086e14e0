"""The one watch of a long-lived connection's credential: it ends the connection when the
credential dies, idle or not.

Every long-lived connection uses it: a `/ws/learn/` or `/ws/events/` socket and an A2E session's
stream. The watch hears a committed change to its person or token at once (the principal cache's
`watch`: a change saved in this process or, with Redis, in another), and looks again every
POLL_SECONDS for a change that no signal told of (SQL, another process without Redis), which the
cache trusts for at most its TTL. Once the credential stands for nobody (revoked, deactivated,
logged out), it calls the connection's `on_end`, once; a changed role is the connection's to
apply, on its next frame or event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from asgiref.sync import sync_to_async

from core.accounts.credentials import PRINCIPAL_TTL, principals

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from core.accounts.credentials import Credential
    from core.accounts.principals import Principal

logger = logging.getLogger(__name__)

POLL_SECONDS = PRINCIPAL_TTL / 2


async def principal_now(credential: Credential) -> Principal | None:
    """Who the credential stands for now: from the cache, on the event loop, while its entry is
    fresh; else from the database, on the consumers' one sync thread (its connection)."""
    fresh, principal = principals.cached(credential)
    if fresh:
        return principal
    return await sync_to_async(principals.principal, thread_sensitive=True)(credential)


class CredentialWatch:
    """Calls `on_end` once `credential`, which stood for `principal`, stands for nobody."""

    def __init__(
        self,
        credential: Credential,
        principal: Principal,
        on_end: Callable[[], Awaitable[None]],
    ) -> None:
        self.credential = credential
        self.principal = principal
        self.on_end = on_end
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._unwatch: Callable[[], None] | None = None

    def start(self) -> None:
        """Watch from now on, on the running event loop."""
        loop = asyncio.get_running_loop()

        def changed() -> None:  # from whichever thread saved the change
            loop.call_soon_threadsafe(self._changed.set)

        self._unwatch = principals.watch(self.credential, self.principal, changed)
        self._task = loop.create_task(self._run())

    async def stop(self) -> None:
        """Watch no more (the connection is closing)."""
        self._forget()
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _forget(self) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None

    async def _run(self) -> None:
        while await self._alive():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(POLL_SECONDS):
                    await self._changed.wait()
        self._forget()
        await self.on_end()

    async def _alive(self) -> bool:
        # Cleared before the look: a change saved while it looks (it may read the state from
        # before that commit) sets it again, and the next look comes at once.
        self._changed.clear()
        try:
            return await principal_now(self.credential) is not None
        except Exception:  # the database is down: a credential nobody can check, looked at again
            logger.warning("could not look up a connection's credential", exc_info=True)
            return True
