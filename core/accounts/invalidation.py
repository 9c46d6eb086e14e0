"""The principal cache's invalidation across processes: a Redis pub/sub channel.

With `REDIS_URL` set, every committed change to a person, a token or a session is published
(`publish`), and each process runs one listener thread (started by the cache's first use) that
drops what it hears. Whenever it (re)subscribes the whole cache is dropped, since a message may
have been missed meanwhile; while Redis is down, a change made elsewhere counts within the
cache's TTL, as without `REDIS_URL` (then nothing is published and the cache stays local).
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlparse

from django.conf import settings

if TYPE_CHECKING:
    import redis

logger = logging.getLogger(__name__)

RETRY_SECONDS = 0.5
HEALTH_CHECK_SECONDS = 2


class Droppable(Protocol):
    def drop(self, *, user_id: int | None = None, token_id: int | None = None) -> None: ...
    def drop_session_hash(self, session_hash: str) -> None: ...
    def clear(self) -> None: ...


def channel_name() -> str:
    # Pub/sub channels are server-wide, whatever the database number: name them by it, as the
    # channel layer does, so that deployments (or test runs) on one Redis never hear each other.
    db = urlparse(settings.REDIS_URL).path.strip("/") or "0"
    return f"learnportal.{db}.principals"


class _Listener:
    def __init__(self) -> None:
        self.pid = 0
        self.subscribed = threading.Event()
        self._lock = threading.Lock()
        self._publisher: redis.Redis | None = None

    def client(self) -> redis.Redis:
        import redis

        return redis.Redis.from_url(
            settings.REDIS_URL,
            socket_connect_timeout=1,
            socket_timeout=1,
            health_check_interval=HEALTH_CHECK_SECONDS,
        )

    def start(self, cache: Droppable) -> None:
        if self.pid == os.getpid() or not settings.REDIS_URL:
            return
        with self._lock:
            if self.pid == os.getpid():
                return
            self.pid = os.getpid()  # a forked worker starts its own listener
            self.subscribed.clear()
            self._publisher = None
            thread = threading.Thread(
                target=self._run, args=(cache,), name="principal-invalidation", daemon=True
            )
            thread.start()

    def _run(self, cache: Droppable) -> None:
        down_logged = False
        while True:
            try:
                pubsub = self.client().pubsub(ignore_subscribe_messages=False)
                pubsub.subscribe(channel_name())
                while True:
                    message = pubsub.get_message(timeout=HEALTH_CHECK_SECONDS)
                    if message is None:
                        pubsub.check_health()
                        continue
                    if message["type"] == "subscribe":
                        cache.clear()
                        self.subscribed.set()
                        down_logged = False
                    elif message["type"] == "message":
                        apply(cache, message["data"])
            except Exception:  # whatever redis raises: fall back to the local TTL and retry
                if self.subscribed.is_set() or not down_logged:
                    logger.warning(
                        "principal invalidation: Redis unreachable; changes made in other "
                        "processes count within the cache's TTL until it is back",
                        exc_info=True,
                    )
                    down_logged = True
                self.subscribed.clear()
                threading.Event().wait(RETRY_SECONDS)

    def publish(self, message: str) -> None:
        if not settings.REDIS_URL:
            return
        try:
            if self._publisher is None:
                self._publisher = self.client()
            self._publisher.publish(channel_name(), message)
        except Exception:  # a lost publish: the other processes see the change within the TTL
            logger.warning("principal invalidation: could not publish %s", message, exc_info=True)
            self._publisher = None


def apply(cache: Droppable, data: bytes | str) -> None:
    """Drop what one published message names."""
    text = data.decode() if isinstance(data, bytes) else data
    kind, _, value = text.partition(":")
    if kind == "user" and value.isdigit():
        cache.drop(user_id=int(value))
    elif kind == "token" and value.isdigit():
        cache.drop(token_id=int(value))
    elif kind == "session" and value:
        cache.drop_session_hash(value)
    else:
        cache.clear()


_listener = _Listener()


def listen(cache: Droppable) -> None:
    _listener.start(cache)


def linked() -> bool:
    """Whether changes made in other processes reach this one's cache at once (subscribed)."""
    return _listener.subscribed.is_set()


def wait_linked(timeout: float) -> bool:
    return _listener.subscribed.wait(timeout)


def publish(message: str) -> None:
    _listener.publish(message)
