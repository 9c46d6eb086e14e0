"""The cache only speeds things up: a Redis that hangs costs a timeout every few seconds
(core.outage.RETRY_SECONDS), not one a request, and what the cache would have given
comes from the database."""

from __future__ import annotations

import socket
import time
from typing import TYPE_CHECKING, Any

import pytest

from tests.builders import feedback, feedback_req
from tests.factories import EndpointFactory
from tests.harness import http_send, ok
from webhooks.models import Delivery

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.harness import Actor

pytestmark = pytest.mark.django_db

WRITES = 5


@pytest.fixture
def silent_cache(settings: Any) -> Iterator[None]:
    """Django's cache on a Redis that takes connections and never answers, as in a partition."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # the kernel accepts; nobody ever reads
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": f"redis://127.0.0.1:{silent.getsockname()[1]}/0",
                "OPTIONS": settings.REDIS_CACHE_OPTIONS,
            }
        }
        yield


def test_a_cache_that_never_answers_costs_one_timeout_not_one_a_write(
    env: Actor, silent_cache: None, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True  # the endpoint is never called
    endpoint = EndpointFactory.create(events=["feedback.recorded"])
    started = time.monotonic()
    for _ in range(WRITES):
        ok(http_send(env, feedback_req(feedback(component_name="c"))))
    elapsed = time.monotonic() - started
    assert Delivery.objects.filter(endpoint=endpoint).count() == WRITES
    # Each write reads and writes the cache and counts its rate: three timeouts a write, were
    # each call to wait for its own.
    assert elapsed < WRITES * settings.REDIS_CACHE_OPTIONS["socket_timeout"], elapsed
