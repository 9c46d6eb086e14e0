"""What an /a2e request's ASGI scope says (headers, bearer, address, host), and the refusal of
the transport itself; a Channels consumer gets none of this from Django's request and middleware.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from core import csp
from core.accounts.credentials import Credential
from core.accounts.models import hash_token
from core.accounts.principals import bearer_token
from core.ratelimit import scope_address
from learnportal_protocol.errors import MIN_RETRY_AFTER, ErrorCode

BAD_LAST_EVENT_ID = "Last-Event-ID must be the id: of an event of this stream (a whole number)."
EVENT_ID_DIGITS = 18  # an event id fits 64 bits


def header(scope: dict[str, Any], name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value)
    return None


class Refused(Exception):
    def __init__(
        self, status: int, code: ErrorCode, message: str, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        if retry_after is None and status in (429, 503):
            retry_after = MIN_RETRY_AFTER
        self.retry_after = None if retry_after is None else max(MIN_RETRY_AFTER, retry_after)


def header_credential(scope: dict[str, Any]) -> Credential | None:
    """The bearer of the request; Refused for an Authorization header that is not one."""
    value = header(scope, b"authorization")
    if value is None:
        return None
    raw = bearer_token(value)
    if raw is None:
        raise Refused(401, ErrorCode.UNAUTHENTICATED, "Authorization must be 'Bearer <token>'.")
    return Credential("token", hash_token(raw))


client_address = scope_address


def host_allowed(scope: dict[str, Any]) -> bool:
    """Django's ALLOWED_HOSTS check, which a Channels consumer does not get from Django."""
    domain, _ = split_domain_port((header(scope, b"host") or b"").decode("latin-1"))
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


def security_headers(scope: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    """What Django's middleware adds to the portal's own answers: the CSP and nosniff."""
    domain = header(scope, b"host") if host_allowed(scope) else None
    secure = scope.get("scheme") in ("https", "wss")
    policy = csp.policy(domain.decode("latin-1") if domain else None, secure=secure)
    return [
        (b"content-security-policy", policy.encode()),
        (b"x-content-type-options", b"nosniff"),
    ]


def last_event_id(scope: dict[str, Any]) -> int | None:
    """The event a reconnecting stream says it has read last (the SSE standard's header)."""
    value = (header(scope, b"last-event-id") or b"").decode("latin-1").strip()
    if not value:
        return None
    if not value.isdigit() or len(value) > EVENT_ID_DIGITS:
        raise Refused(400, ErrorCode.INVALID, BAD_LAST_EVENT_ID)
    return int(value)
