"""Server-side request forgery: a webhook goes only to a host whose every address is global.

Checked when an endpoint is registered, and at each delivery by the connection itself
(webhooks.transport), which resolves the name once, checks what it got and connects
to that checked address: a name pointed elsewhere later, or between a check and a connection
(DNS rebinding), is refused. LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE lets loopback and private
networks in.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# Not globally reachable in IANA's special-purpose registries, though the `ipaddress` of
# Python 3.11 calls them global (later versions agree with IANA on some of them).
NOT_GLOBAL = tuple(
    ipaddress.ip_network(network)
    for network in (
        "192.0.0.0/24",  # IETF protocol assignments
        "64:ff9b:1::/48",  # local-use NAT64 (RFC 8215)
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # SRv6 SIDs (RFC 9602)
    )
)
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # the well-known prefix: IPv4 in the last 32 bits
IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # SIIT (RFC 2765)
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated (RFC 4291), :: and ::1 among them


def is_public(address: Address) -> bool:
    """Whether a webhook may go to `address`: globally reachable, not multicast, and for an IPv6
    address that carries an IPv4 one (mapped, compatible, translated, 6to4, Teredo, NAT64),
    that IPv4 address public too, since a relay would deliver to it."""
    if not address.is_global or address.is_multicast:
        return False
    if any(address.version == network.version and address in network for network in NOT_GLOBAL):
        return False
    if isinstance(address, ipaddress.IPv6Address):
        return not address.is_site_local and all(map(is_public, embedded_ipv4(address)))
    return True


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, by the transition mechanism of its prefix."""
    embedded = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
    if any(address in network for network in (NAT64, IPV4_TRANSLATED, IPV4_COMPATIBLE)):
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF))
    return [ipv4 for ipv4 in embedded if ipv4 is not None]


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
            if not is_public(address):
                raise Refused(
                    f"{host} resolves to {address}, a loopback, private, link-local or "
                    "otherwise non-public address; webhooks go only to public addresses."
                )
    return addresses
