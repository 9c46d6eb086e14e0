"""What a long-lived connection or a bearer request authenticated with, and who it is right now.

Every API request and every WebSocket frame is judged by the principal's state now: revoked,
deactivated, logged out or given another role. Looking that up in the database each time would
cost more than a small request itself, so principals are cached per credential and dropped at
once when a change to a person or a token is saved (signals.py), in this process and, with
`REDIS_URL` set, in every other one (invalidation.py). Long-lived connections watch their
credential and hear of the drop at once (`watch`, through core.accounts.watch), so that a revoked
credential loses an idle socket or stream too.

An entry is trusted for at most `PRINCIPAL_TTL` seconds (one query a second per credential and
process, whatever the traffic), so that a change made where no signal fires (another process
without Redis, SQL, a lost Redis message) counts within that too.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs

from django.conf import settings
from django.contrib.auth import get_user
from django.utils import timezone
from django.utils.module_loading import import_string

from core.accounts import invalidation
from core.accounts.models import ApiToken, hash_token
from core.accounts.principals import (
    LAST_USED_RESOLUTION,
    Principal,
    bearer_token,
    principal_for_token_hash,
    principal_for_user,
)

if TYPE_CHECKING:
    from collections.abc import Callable

logger = logging.getLogger(__name__)

PRINCIPAL_TTL = 1.0
MAX_ENTRIES = 10_000  # past this, expired entries are swept out


@dataclass(frozen=True)
class Credential:
    """A bearer token (by its hash) or a browser session (by its key)."""

    kind: Literal["token", "session"]
    secret: str


def credential_of_scope(scope: dict[str, Any]) -> Credential | None:
    """The credential a WebSocket handshake carries: a bearer token, else the session cookie."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            raw = bearer_token(value)
            return Credential("token", hash_token(raw)) if raw else None
    tokens = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    if tokens:
        return Credential("token", hash_token(tokens[0]))
    session = scope.get("session")
    session_key = getattr(session, "session_key", None)
    return Credential("session", session_key) if session_key else None


def resolve(credential: Credential) -> Principal | None:
    """Who the credential stands for now, from the database; None if it no longer works."""
    if credential.kind == "token":
        return principal_for_token_hash(credential.secret)
    store = import_string(f"{settings.SESSION_ENGINE}.SessionStore")(credential.secret)
    # django.contrib.auth.get_user reads only `request.session`; it checks the user is active
    # and that the session's auth hash still matches (a password change logs sessions out).
    user = get_user(SimpleNamespace(session=store))  # type: ignore[arg-type]
    return principal_for_user(user) if user.is_authenticated else None


@dataclass(frozen=True)
class _Watch:
    credential: Credential
    user_id: int | None
    token_id: int | None
    callback: Callable[[], None]


def _notify(watches: list[_Watch]) -> None:
    for watch in watches:
        try:
            watch.callback()
        except Exception:  # a socket gone with its event loop: never fail the saved change
            logger.debug("a principal watch failed", exc_info=True)


class PrincipalCache:
    """Principals by credential, dropped at once on a change, trusted for `ttl` seconds."""

    def __init__(
        self, ttl: float = PRINCIPAL_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[Credential, tuple[float, Principal | None]] = {}
        # Bumped by every drop: a lookup that raced a drop (it may have read the state from
        # before the change) is answered but not stored.
        self._epoch = 0
        self._watches: set[_Watch] = set()

    def principal(self, credential: Credential) -> Principal | None:
        """The principal now: from the cache when fresh, else from the database."""
        invalidation.listen(self)
        now = self.clock()
        with self._lock:
            entry = self._entries.get(credential)
            epoch = self._epoch
        if entry is not None and now - entry[0] < self.ttl:
            return entry[1]
        principal = resolve(credential)
        with self._lock:
            if self._epoch != epoch:
                return principal
            if len(self._entries) >= MAX_ENTRIES:
                self._entries = {
                    key: entry for key, entry in self._entries.items() if now - entry[0] < self.ttl
                }
            self._entries[credential] = (now, principal)
        return principal

    def cached(self, credential: Credential) -> tuple[bool, Principal | None]:
        """(True, the principal) where a fresh entry answers without the database, else
        (False, None): for the async edges, which must not wait on it (core.accounts.watch)."""
        with self._lock:
            entry = self._entries.get(credential)
        if entry is not None and self.clock() - entry[0] < self.ttl:
            return True, entry[1]
        return False, None

    def is_fresh(self, credential: Credential) -> bool:
        """Whether `principal` would answer without the database."""
        return self.cached(credential)[0]

    def watched(self, credential: Credential) -> bool:
        """Whether a long-lived connection watches this credential now."""
        with self._lock:
            return any(watch.credential == credential for watch in self._watches)

    def watch(
        self, credential: Credential, principal: Principal, callback: Callable[[], None]
    ) -> Callable[[], None]:
        """Call `callback` (from any thread) whenever this credential's principal is dropped.

        Returns the function that stops watching.
        """
        watch = _Watch(credential, principal.user_id, principal.token_id, callback)
        with self._lock:
            self._watches.add(watch)

        def unwatch() -> None:
            with self._lock:
                self._watches.discard(watch)

        return unwatch

    def drop(self, *, user_id: int | None = None, token_id: int | None = None) -> None:
        """Forget every principal of this person or token, so that the next use asks again."""

        def hit(principal_user: int | None, principal_token: int | None) -> bool:
            return (user_id is not None and principal_user == user_id) or (
                token_id is not None and principal_token == token_id
            )

        with self._lock:
            self._epoch += 1
            stale = [
                credential
                for credential, (_, principal) in self._entries.items()
                if principal is None or hit(principal.user_id, principal.token_id)
            ]
            for credential in stale:
                del self._entries[credential]
            watches = [w for w in self._watches if hit(w.user_id, w.token_id)]
        _notify(watches)

    def drop_session(self, session_key: str) -> None:
        credential = Credential("session", session_key)
        self.drop_credentials(lambda c: c == credential)

    def drop_session_hash(self, session_hash: str) -> None:
        self.drop_credentials(
            lambda c: c.kind == "session" and hash_token(c.secret) == session_hash
        )

    def drop_credentials(self, matches: Callable[[Credential], bool]) -> None:
        with self._lock:
            self._epoch += 1
            for credential in [c for c in self._entries if matches(c)]:
                del self._entries[credential]
            watches = [w for w in self._watches if matches(w.credential)]
        _notify(watches)

    def changed(self, *, user_id: int | None = None, token_id: int | None = None) -> None:
        """A committed change to a person or a token: drop it here and in every process."""
        self.drop(user_id=user_id, token_id=token_id)
        if user_id is not None:
            invalidation.publish(f"user:{user_id}")
        if token_id is not None:
            invalidation.publish(f"token:{token_id}")

    def session_ended(self, session_key: str) -> None:
        self.drop_session(session_key)
        invalidation.publish(f"session:{hash_token(session_key)}")

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every principal (the cross-process channel (re)subscribed: it may have missed one)."""
        with self._lock:
            self._epoch += 1
            self._entries.clear()
            watches = list(self._watches)
        _notify(watches)


class UsageLog:
    """When tokens were last used: one write per token per `LAST_USED_RESOLUTION` and process,
    so that a busy agent does not turn every read into a write."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._written: dict[int, float] = {}

    def seen(self, principal: Principal) -> None:
        if principal.token_id is None:
            return
        now = self.clock()
        resolution = LAST_USED_RESOLUTION.total_seconds()
        with self._lock:
            last = self._written.get(principal.token_id)
            if last is not None and now - last < resolution:
                return
            if len(self._written) >= MAX_ENTRIES:
                self._written = {k: t for k, t in self._written.items() if now - t < resolution}
            self._written[principal.token_id] = now
        ApiToken.objects.filter(pk=principal.token_id).update(last_used_at=timezone.now())

    def clear(self) -> None:
        with self._lock:
            self._written.clear()


principals = PrincipalCache()
usage = UsageLog()
