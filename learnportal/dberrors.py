"""What a database or Redis error means to a client, said once for dispatch and every REST view.

A race on the same ids is a `conflict` the client may retry; anything else the database
refuses is `unavailable` with a Retry-After: never a 500. So is Redis unreachable where a
request truly needs it (what only optimises, the cache and the live events, does without it).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError

from learnportal_protocol.errors import ErrorCode, LearnError

if TYPE_CHECKING:
    from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RETRY_AFTER = 1  # seconds
SAME_IDS = "Another request wrote the same ids at the same time; retry."
BUSY = "The database is busy or down; retry shortly."
REFUSED = "The database refused the request; retry shortly."
REDIS_DOWN = "Redis is unreachable; retry shortly."


def database_error(exc: DatabaseError, *, during: str) -> LearnError:
    """The learn/error for a database error met while serving `during` (a message type or
    a URL path), logged at the level it deserves."""
    if isinstance(exc, IntegrityError):
        logger.info("integrity error on %s: %s", during, exc)
        return LearnError(ErrorCode.CONFLICT, SAME_IDS)
    if isinstance(exc, OperationalError | InterfaceError):
        logger.warning("database unavailable on %s: %s", during, exc)
        return LearnError(ErrorCode.UNAVAILABLE, BUSY, retry_after=RETRY_AFTER)
    logger.error("database error on %s", during, exc_info=exc)
    return LearnError(ErrorCode.UNAVAILABLE, REFUSED, retry_after=RETRY_AFTER)


def redis_error(exc: RedisError, *, during: str) -> LearnError:
    logger.warning("Redis unavailable on %s: %s", during, exc)
    return LearnError(ErrorCode.UNAVAILABLE, REDIS_DOWN, retry_after=RETRY_AFTER)
