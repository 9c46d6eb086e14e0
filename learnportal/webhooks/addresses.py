"""Server-side request forgery: a webhook goes only to a host whose every address is global.

Checked when an endpoint is registered, and at each delivery by the connection itself
(learnportal.webhooks.transport), which resolves the name once, checks what it got and connects
to that checked address: a name pointed elsewhere later, or between a check and a connection
(DNS rebinding), is refused. LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE lets loopback and private
networks in.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings


class Refused(Exception):
    """Why a URL is no place to send a webhook; the message says so for a person."""


def check_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # "http://[x/", say
        raise Refused("The URL is not one: check its host.") from None
    if parts.scheme not in {"http", "https"}:
        raise Refused("The URL starts with http:// or https://.")
    if not host:
        raise Refused("The URL names a host.")
    if parts.username or parts.password:
        raise Refused("The URL carries no user name or password; the signature authenticates.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused("The URL's port is a number from 1 to 65535.") from None
    if not settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE:
        allowed_addresses(host, port)


def allowed_addresses(host: str, port: int) -> list[str]:
    """`host`'s addresses from one lookup, each one a webhook may go to; else Refused."""
    try:
        found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        raise Refused(f"{host} does not resolve.") from None
    addresses = list(dict.fromkeys(str(sockaddr[0]) for *_, sockaddr in found))
    if not settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE:
        for text in addresses:
            address = ipaddress.ip_address(text.split("%")[0])
            mapped = getattr(address, "ipv4_mapped", None)
            if not address.is_global or (mapped is not None and not mapped.is_global):
                raise Refused(
                    f"{host} resolves to {address}, a loopback, private, link-local or "
                    "otherwise non-public address; webhooks go only to public addresses."
                )
    return addresses
