"""The Content-Security-Policy of settings, plus each page's own WebSocket origin.

CSP Level 3 lets `connect-src 'self'` cover ws: and wss: on the page's own host, but not every
browser in use does so; naming the origin the history page's live socket opens keeps it working
everywhere, and allows no other host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from csp.middleware import CSPMiddleware, PolicyParts
from csp.utils import build_policy
from django.core.exceptions import DisallowedHost

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponseBase


class PortalCSPMiddleware(CSPMiddleware):
    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()
        except DisallowedHost:  # answered 400 already: no origin of ours to name
            return parts
        own = websocket_origin(host, secure=request.is_secure())
        update = dict(parts.update or {})
        update["connect-src"] = [*update.get("connect-src", ()), own]
        parts.update = update
        return parts


def websocket_origin(host: str, *, secure: bool) -> str:
    return f"{'wss' if secure else 'ws'}://{host}"


def policy(host: str | None, *, secure: bool) -> str:
    """The header the middleware sends, for an answer that Django's middleware never sees (the
    Channels consumers'); `host` None when it is not an allowed host (no origin of ours)."""
    update = {"connect-src": [websocket_origin(host, secure=secure)]} if host else None
    return build_policy(update=update)
