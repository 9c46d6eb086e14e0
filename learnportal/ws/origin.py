"""Refuse a browser's WebSocket handshake unless it comes from the portal's own origin.

A page on another site could otherwise ride a logged-in person's session cookie into
/ws/events/ or /ws/learn/. An origin is scheme, host and port: the same host on another port,
or over the other scheme, is another site. The portal's own origin is the handshake's: http for
ws and https for wss (or what a trusted proxy says, SECURE_PROXY_SSL_HEADER), and the Host
header, which must be one of ALLOWED_HOSTS as for any HTTP request. CSRF_TRUSTED_ORIGINS are
let in too. Agents authenticate with a bearer token and send no Origin: nothing to ride, so in.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import validate_host

Origin = tuple[str, str, int]
DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_origin(scheme: str, netloc: str) -> Origin | None:
    """(scheme, host, port) with the default port filled in, or None if it is not one."""
    if scheme not in DEFAULT_PORTS or not netloc or any(c in netloc for c in "/?#@\\ "):
        return None
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return (scheme, parts.hostname, DEFAULT_PORTS[scheme] if port is None else port)


def origin_of(value: str) -> Origin | None:
    scheme, sep, netloc = value.lower().partition("://")
    return parse_origin(scheme, netloc) if sep else None


def _headers(scope: dict[str, Any]) -> dict[bytes, list[str]]:
    headers: dict[bytes, list[str]] = {}
    for name, value in scope.get("headers", []):
        headers.setdefault(name.lower(), []).append(value.decode("latin1"))
    return headers


def _is_secure(scope: dict[str, Any], headers: dict[bytes, list[str]]) -> bool:
    """As Django's request.is_secure(), for a handshake."""
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        name = meta_name.removeprefix("HTTP_").lower().replace("_", "-").encode()
        if name in headers:
            return headers[name][0].split(",", 1)[0].strip() == secure_value
    scheme: str = scope.get("scheme", "ws")
    return scheme == "wss"


def own_origin(scope: dict[str, Any], headers: dict[bytes, list[str]]) -> Origin | None:
    hosts = headers.get(b"host", [])
    if len(hosts) != 1:
        return None
    origin = parse_origin("https" if _is_secure(scope, headers) else "http", hosts[0].strip())
    if origin is None:
        return None
    allowed = list(settings.ALLOWED_HOSTS) or ["localhost", "127.0.0.1", "[::1]"]
    host = f"[{origin[1]}]" if ":" in origin[1] else origin[1]
    return origin if validate_host(host, allowed) else None


def origin_allowed(scope: dict[str, Any]) -> bool:
    headers = _headers(scope)
    origins = headers.get(b"origin")
    if origins is None:
        return True
    if len(origins) != 1:
        return False
    origin = origin_of(origins[0].strip())
    if origin is None:
        return False
    trusted = {origin_of(value) for value in settings.CSRF_TRUSTED_ORIGINS}
    return origin == own_origin(scope, headers) or origin in trusted


class BrowserOriginValidator:
    """ASGI middleware: deny the handshake of a browser page from another origin."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if origin_allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
