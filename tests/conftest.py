"""The suite's one harness and its casts; the helpers they use are in tests/harness.py.

The cast (each an `Actor`: a principal and an APIClient sending with its token):
`agent` and `env` (machine tokens), `ann` the annotator, `rev` and `rev2` the reviewers, `boss`
the admin, and `anonymous` (no credentials). `transport` runs a test once over HTTP and once over
WebSocket (that case on a transactional database: the consumer reaches the database from another
thread); `broadcasts` captures what the services broadcast after commit instead of sending it.

The demo cast, for page and browser tests: `seeded` loads learnportal.demo, whose people
`annotator`, `reviewer` (and `admin`) log in with demo.DEMO_PASSWORD; the `annotator`,
`reviewer` and `second_reviewer` fixtures are Django test clients logged in by session as them,
as a browser is, since pages authenticate by session, not by token.

The test settings (tests/django_settings.py) set a fast password hasher once for every test.
Services marked `postgres`, `redis` or `browser` are skipped where absent, except on CI's
service run (LEARNPORTAL_REQUIRE_SERVICES=1), where a skip is a failure. `redis_server` marks a
test that starts and kills a Redis of its own (the `redis_server` fixture): skipped only where
redis-server is not installed, and never on CI.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import uuid
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from core import best_effort_cache, events, ratelimit
from core.accounts import invalidation
from core.accounts.credentials import principals, usage
from core.accounts.models import User
from learnportal import demo
from tests.factories import UserFactory
from tests.harness import (
    Actor,
    Broadcast,
    Broadcasts,
    Send,
    http_send,
    human_actor,
    token_actor,
    ws_send,
)
from tests.processes import REPO, RedisServer
from webhooks.outbox import SUBSCRIPTIONS_KEY

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from core.accounts.roles import Action

REQUIRE_SERVICES = os.environ.get("LEARNPORTAL_REQUIRE_SERVICES") == "1"
IN_CI = os.environ.get("CI") == "true"


RATE_WINDOW_START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


def _service_missing(marker: str) -> str | None:
    if (
        marker == "postgres"
        and settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql"
    ):
        return "needs PostgreSQL (set DATABASE_URL)"
    if marker == "redis" and not settings.REDIS_URL:
        return "needs Redis (set REDIS_URL)"
    if marker == "browser" and not shutil.which("chromium"):
        return "needs Chromium at /usr/bin/chromium"
    if marker == "redis_server" and not shutil.which("redis-server"):
        return "needs redis-server on PATH"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for marker in ("postgres", "redis", "browser", "redis_server"):
            if item.get_closest_marker(marker) is None:
                continue
            reason = _service_missing(marker)
            if reason is None:
                continue
            required = (REQUIRE_SERVICES and marker in {"postgres", "redis"}) or (
                IN_CI and marker in {"browser", "redis_server"}
            )
            if required:
                item.add_marker(pytest.mark.usefixtures("_fail_required_service"))
            else:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def _fail_required_service(request: pytest.FixtureRequest) -> None:
    pytest.fail(f"CI must run {request.node.nodeid}, but a service it needs is missing here")


@pytest.fixture(autouse=True)
def _fresh_rate_limits(settings: Any) -> None:
    # Counts live in the cache (Redis on the service run) under this prefix: a new one per test
    # starts every test with no requests counted, without clearing anything else.
    settings.RATELIMIT_CACHE_PREFIX = f"rl:{uuid.uuid4().hex}:"


@pytest.fixture
def clock(time_machine: Any) -> Any:
    """Wall-clock time stopped at RATE_WINDOW_START, moved on by the test instead of sleeping:
    limits are counted in fixed windows of wall-clock time, and no window may end between two
    requests of one test by chance."""
    time_machine.move_to(RATE_WINDOW_START, tick=False)
    return time_machine


@pytest.fixture(autouse=True)
def _fresh_principal_cache() -> None:
    if settings.REDIS_URL:
        # The listener's first subscription clears the cache: let it happen before the test.
        invalidation.listen(principals)
        assert invalidation.wait_linked(5.0), "the principal invalidation listener never subscribed"
    principals.clear()
    usage.clear()


@pytest.fixture(autouse=True)
def _no_live_updates_left_over() -> None:
    # A test's event loop ends with the test: what it left waiting to be flushed is dropped.
    events.coalescer.reset()


@pytest.fixture(autouse=True)
def _no_outage_left_over() -> None:
    # An outage a test caused (an unreachable cache or layer) is not the next test's.
    for outage in (ratelimit.outage, best_effort_cache.outage, events.layer_outage):
        outage.forget()


@pytest.fixture(autouse=True)
def _fresh_webhook_subscriptions() -> None:
    # Which endpoints take which event is cached: a test's rolled-back endpoints must not linger.
    cache.delete(SUBSCRIPTIONS_KEY)


@pytest.fixture
def broadcasts(monkeypatch: pytest.MonkeyPatch) -> Broadcasts:
    captured = Broadcasts([])

    def capture(
        event: str,
        payload: dict[str, Any],
        *,
        project: str,
        audience: Action,
        totals: object = None,
    ) -> None:
        captured.sent.append(Broadcast(event, payload, audience, project))

    monkeypatch.setattr(events, "broadcast_now", capture)
    return captured


@pytest.fixture
def agent(db: None) -> Actor:
    return token_actor("agent-1", "agent")


@pytest.fixture
def env(db: None) -> Actor:
    return token_actor("gym-1", "environment")


@pytest.fixture
def ann(db: None) -> Actor:
    return human_actor("ann", "annotator")


@pytest.fixture
def rev(db: None) -> Actor:
    return human_actor("rev", "reviewer")


@pytest.fixture
def rev2(db: None) -> Actor:
    return human_actor("rev2", "reviewer")


@pytest.fixture
def boss(db: None) -> Actor:
    return human_actor("boss", "admin")


@pytest.fixture
def anonymous(db: None) -> Actor:
    return Actor("anonymous", APIClient())


@pytest.fixture(params=["http", pytest.param("ws", marks=pytest.mark.django_db(transaction=True))])
def transport(request: pytest.FixtureRequest) -> Send:
    """`send(actor, body) -> (status, reply)` over HTTP, then over WebSocket.

    A test taking `transport` must not carry a non-transactional `django_db` mark of its own
    (a module's `pytestmark` is fine): the closest mark wins, and the WebSocket case needs the
    transactional one.
    """
    return http_send if request.param == "http" else ws_send


# --- the demo cast, for pages ------------------------------------------------------------------


DEMO_SEEDED_AT = 1_700_000_000.0 + demo.SINCE_SEED  # the demo's records from 1_700_000_000


@pytest.fixture
def seeded(db: None) -> None:
    demo.seed_demo(now=DEMO_SEEDED_AT)


def _logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def annotator(seeded: None) -> Client:
    return _logged_in("annotator")


@pytest.fixture
def reviewer(seeded: None) -> Client:
    return _logged_in("reviewer")


@pytest.fixture
def second_reviewer(seeded: None) -> Client:
    UserFactory.create(username="rev2", role="reviewer")
    return _logged_in("rev2")


@pytest.fixture
def unreachable_cache(settings: Any) -> None:
    """Django's cache on a Redis that nobody serves, as when Redis is down."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
        }
    }


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A redis-server of the test's own, started (tests using it carry the `redis_server` mark)."""
    server = RedisServer()
    server.start()
    yield server
    server.kill()


@pytest.fixture
def on_postgres() -> bool:
    return connection.vendor == "postgresql"


@pytest.fixture(scope="session", autouse=True)
def _release_stray_connections(django_db_setup: None, django_db_blocker: Any) -> Any:
    """Close connections other threads kept, before the test database is dropped.

    The WebSocket consumer keeps its connection between frames on asgiref's one sync thread,
    and the live server's request threads may still hold one from the pool; either would keep
    PostgreSQL from dropping the test database.
    """
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connection, connections

    with django_db_blocker.unblock():
        SyncToAsync.single_thread_executor.submit(connections.close_all).result()
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


@pytest.fixture
def asgi_server(transactional_db: None) -> Iterator[str]:
    """`make run`'s server (uvicorn and learnportal.asgi) in a thread, on a free port."""
    import uvicorn

    from learnportal.asgi import application

    # Listening before uvicorn starts: early connections wait in the backlog, no polling.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(application, lifespan="off", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=30)
    sock.close()


@dataclass(frozen=True)
class InstalledClient:
    """The client's wheel, as `pip install ./clients/python` builds it, and where it is unpacked."""

    wheel: Path
    site: Path  # on PYTHONPATH alone, it is the client installed (without the checkout)


@pytest.fixture(scope="session")
def installed_client(tmp_path_factory: pytest.TempPathFactory) -> InstalledClient:
    out = tmp_path_factory.mktemp("client")
    # No download: hatchling, the client's build backend, is pinned in the dev dependencies.
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
    subprocess.run(
        [*pip_wheel, "--no-build-isolation", "--wheel-dir", str(out), str(REPO / "clients/python")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("learnportal_client-*.whl")
    site = out / "site"
    zipfile.ZipFile(wheel).extractall(site)
    return InstalledClient(wheel, site)
