"""Django's cache as an optimisation only: a cache that is down reads as a miss, writes nothing.

With REDIS_URL the cache is Redis; a value kept there must always be one the database can give
again, so that Redis down costs a query, never a request. (The rate limit counts in the cache
too, and fails open the same way: core.ratelimit.)
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache

from core.outage import Outage

logger = logging.getLogger(__name__)

outage = Outage("the cache", "what it keeps is read from the database", logger)


def cache_get(key: str) -> Any:
    """The cached value, or None when there is none or the cache is unreachable."""
    if outage.skip():
        return None
    try:
        value = cache.get(key)
    except Exception as exc:  # whatever the cache backend raises
        outage.failed(exc)
        return None
    outage.succeeded()
    return value


def cache_set(key: str, value: Any, seconds: float) -> None:
    if outage.skip():
        return
    try:
        cache.set(key, value, seconds)
    except Exception as exc:
        outage.failed(exc)
    else:
        outage.succeeded()


def cache_delete(key: str) -> None:
    """Drop a value. With the cache unreachable it may outlive its change until its timeout,
    which bounds how stale a kept value can ever be."""
    if outage.skip():
        return
    try:
        cache.delete(key)
    except Exception as exc:
        outage.failed(exc)
    else:
        outage.succeeded()
