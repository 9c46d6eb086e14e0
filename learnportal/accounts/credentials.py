"""What a long-lived connection authenticated with, and who that credential is right now.

A socket authenticates once, at its handshake, but is judged on every frame by the principal's
state now: revoked, deactivated, logged out or given another role. Looking that up in the
database per frame would cost more than the frame, so principals are cached per credential for
at most `PRINCIPAL_TTL` seconds, and dropped at once when this process saves a change to a
person or a token (signals in accounts.apps). A change made elsewhere (another server process,
`manage.py revoketoken`, the database itself) therefore takes effect within `PRINCIPAL_TTL`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs

from django.conf import settings
from django.contrib.auth import get_user
from django.utils.module_loading import import_string

from learnportal.accounts.models import hash_token
from learnportal.accounts.principals import (
    Principal,
    bearer_token,
    principal_for_token_hash,
    principal_for_user,
)

if TYPE_CHECKING:
    from collections.abc import Callable

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


class PrincipalCache:
    """Principals by credential, each trusted for `ttl` seconds, dropped at once on change."""

    def __init__(
        self, ttl: float = PRINCIPAL_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[Credential, tuple[float, Principal | None]] = {}

    def principal(self, credential: Credential) -> Principal | None:
        """The principal now: from the cache when fresh, else from the database."""
        now = self.clock()
        with self._lock:
            entry = self._entries.get(credential)
        if entry is not None and now - entry[0] < self.ttl:
            return entry[1]
        principal = resolve(credential)
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries = {
                    key: entry for key, entry in self._entries.items() if now - entry[0] < self.ttl
                }
            self._entries[credential] = (now, principal)
        return principal

    def is_fresh(self, credential: Credential) -> bool:
        """Whether `principal` would answer without the database (for the async edges)."""
        with self._lock:
            entry = self._entries.get(credential)
        return entry is not None and self.clock() - entry[0] < self.ttl

    def drop(self, *, user_id: int | None = None, token_id: int | None = None) -> None:
        """Forget every principal of this person or token, so that the next use asks again."""
        with self._lock:
            stale = [
                credential
                for credential, (_, principal) in self._entries.items()
                if principal is None
                or (user_id is not None and principal.user_id == user_id)
                or (token_id is not None and principal.token_id == token_id)
            ]
            for credential in stale:
                del self._entries[credential]

    def drop_session(self, session_key: str) -> None:
        with self._lock:
            self._entries.pop(Credential("session", session_key), None)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


principals = PrincipalCache()
