"""One request limit per principal, counted in Django's cache, for every transport.

django-ratelimit counts requests in fixed windows with the cache's atomic `add` and `incr`; with
`REDIS_URL` set the cache is Redis, so every server process shares one count per principal.
learn/* is counted once in dispatch (HTTP, WebSocket, and any later transport); every other API
view through `RateThrottle`, DRF's default throttle, and a request DRF refuses before its throttle
runs (no credential, a bad or revoked token) in learnportal.api.errors; every other request Django
serves (the portal's pages, the login page) in learnportal.pagelimit. Requests without a principal
count under their client's address. If the cache is down, requests are served rather than refused
(fail open).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django_ratelimit.core import get_usage
from rest_framework.throttling import BaseThrottle

from core.outage import Outage
from learnportal_protocol.errors import MIN_RETRY_AFTER, ErrorCode, LearnError

if TYPE_CHECKING:
    from django.http import HttpRequest

logger = logging.getLogger(__name__)

GROUP = "learnportal"

outage = Outage("the cache", "requests are not limited", logger)


def window(rate: float) -> tuple[int, int]:
    """The fixed window (requests, seconds) closest to `rate` requests a second."""
    seconds = max(1, math.ceil(1 / rate))
    return max(1, round(rate * seconds)), seconds


def rate_limited(retry_after: int) -> LearnError:
    rate = settings.LEARNPORTAL_RATE_LIMIT
    retry_after = max(MIN_RETRY_AFTER, retry_after)
    return LearnError(
        ErrorCode.RATE_LIMITED,
        f"Too many requests; at most {rate:g} a second. Retry after {retry_after} s.",
        retry_after=retry_after,
    )


def retry_after_for(key: str) -> int | None:
    """Count one request for `key`: the seconds to wait if it is over the limit, else None."""
    rate = settings.LEARNPORTAL_RATE_LIMIT
    if rate <= 0 or outage.skip():
        return None
    try:
        # The key and the rate are given, so django-ratelimit needs no request to read them.
        usage = get_usage(
            None, group=GROUP, key=lambda _group, _request: key, rate=window(rate), increment=True
        )
    except Exception as exc:  # whatever the cache backend raises: never refuse a request for it
        outage.failed(exc)
        return None
    outage.succeeded()
    if usage is None or not usage["should_limit"]:
        return None
    # The window's last second still belongs to it: the next window starts one second later.
    # A second that turns while the count is taken makes time_left -1: the wait is still 1.
    time_left: int = usage["time_left"]
    return max(MIN_RETRY_AFTER, time_left + 1)


def rate_limit_check(key: str) -> None:
    retry_after = retry_after_for(key)
    if retry_after is not None:
        raise rate_limited(retry_after)


def client_address(request: HttpRequest) -> str | None:
    """Who sent a request, for limits without a principal and for the login lockout.

    REMOTE_ADDR is the peer, or the client that a trusted proxy names when the server is told to
    believe it (uvicorn's --forwarded-allow-ips); never a header a client could forge.
    """
    return request.META.get("REMOTE_ADDR") or None


ADDRESS_PREFIX = "ip:"  # the keys of clients without a principal


def key_of_address(address: str | None) -> str:
    """What a client without a principal is counted under, on every transport."""
    return f"{ADDRESS_PREFIX}{address or '?'}"


def scope_address(scope: dict[str, Any]) -> str:
    """Who opened an ASGI connection (a socket, an A2E request): the peer, as REMOTE_ADDR is."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


def refused_connection_wait(scope: dict[str, Any]) -> int | None:
    """Count a connection no credential vouches for under its address: the wait if over."""
    return retry_after_for(key_of_address(scope_address(scope)))


def address_key(request: HttpRequest) -> str:
    """What a request without a principal is counted under: its client's address."""
    return key_of_address(client_address(request))


def drf_key(request: Any) -> str:
    """What a DRF request is counted under: its principal, else its client's address."""
    return getattr(request.user, "key", None) or address_key(request)


# Set on a DRF request once its throttle has run, so that a refusal is not counted twice.
_COUNTED = "_learnportal_rate_counted"


def was_counted(request: Any) -> bool:
    return bool(getattr(request, _COUNTED, False))


class RateThrottle(BaseThrottle):
    """DRF's default throttle: the same limit, for every API view.

    A view names in `counted_by_dispatch` the methods whose requests go through dispatch,
    which counts them already.
    """

    def __init__(self) -> None:
        self.retry_after: int | None = None

    def allow_request(self, request: Any, view: Any) -> bool:
        setattr(request, _COUNTED, True)
        if request.method in getattr(view, "counted_by_dispatch", ()):
            return True
        self.retry_after = retry_after_for(drf_key(request))
        return self.retry_after is None

    def wait(self) -> float | None:
        return self.retry_after
