"""Shared fixtures: a small cast of principals and clients that speak as them.

Cast: `agent` and `env` (machine tokens), `ann` the annotator, `rev` and `rev2` the reviewers,
`boss` the admin. Services marked `postgres`, `redis` or `browser` are skipped where absent,
except on CI's service run (LEARNPORTAL_REQUIRE_SERVICES=1), where a skip is a failure.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from learnportal import events
from learnportal.accounts.credentials import principals
from learnportal.accounts.models import ApiToken, User
from learnportal.accounts.roles import Action

REQUIRE_SERVICES = os.environ.get("LEARNPORTAL_REQUIRE_SERVICES") == "1"
IN_CI = os.environ.get("CI") == "true"


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
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for marker in ("postgres", "redis", "browser"):
            if item.get_closest_marker(marker) is None:
                continue
            reason = _service_missing(marker)
            if reason is None:
                continue
            required = (REQUIRE_SERVICES and marker in {"postgres", "redis"}) or (
                IN_CI and marker == "browser"
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


@pytest.fixture(autouse=True)
def _fresh_principal_cache() -> None:
    principals.clear()


@dataclass(frozen=True)
class Broadcast:
    event: str
    payload: dict[str, Any]
    audience: Action


@dataclass
class Broadcasts:
    """What the services broadcast (after commit), captured instead of sent."""

    sent: list[Broadcast]

    def events(self) -> list[str]:
        return [b.event for b in self.sent]


@pytest.fixture
def broadcasts(monkeypatch: pytest.MonkeyPatch) -> Broadcasts:
    captured = Broadcasts([])

    def capture(event: str, payload: dict[str, Any], *, audience: Action) -> None:
        captured.sent.append(Broadcast(event, payload, audience))

    monkeypatch.setattr(events, "broadcast_now", capture)
    return captured


@dataclass
class Actor:
    """A principal and a client that sends as it."""

    name: str
    client: APIClient
    raw_token: str | None = None

    def learn(self, body: dict[str, Any] | bytes, **extra: Any) -> Any:
        data = body if isinstance(body, bytes) else orjson.dumps(body)
        return self.client.post("/api/learn/", data=data, content_type="application/json", **extra)


def _token_actor(name: str, role: str) -> Actor:
    _, raw = ApiToken.issue(name=name, role=role)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return Actor(name, client, raw)


def _human_actor(name: str, role: str) -> Actor:
    User.objects.create_user(
        username=name,
        password="correct-horse-9",
        role=role,
        is_superuser=role == "admin",
        is_staff=role == "admin",
    )
    user = User.objects.get(username=name)
    _, raw = ApiToken.issue(name=f"{name}-personal", user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return Actor(name, client, raw)


@pytest.fixture
def agent(db: None) -> Actor:
    return _token_actor("agent-1", "agent")


@pytest.fixture
def env(db: None) -> Actor:
    return _token_actor("gym-1", "environment")


@pytest.fixture
def ann(db: None) -> Actor:
    return _human_actor("ann", "annotator")


@pytest.fixture
def rev(db: None) -> Actor:
    return _human_actor("rev", "reviewer")


@pytest.fixture
def rev2(db: None) -> Actor:
    return _human_actor("rev2", "reviewer")


@pytest.fixture
def boss(db: None) -> Actor:
    return _human_actor("boss", "admin")


@pytest.fixture
def anonymous(db: None) -> Actor:
    return Actor("anonymous", APIClient())


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


# The HTTP/WebSocket `transport` fixture, for every folder (it lived in tests/api/conftest.py).
from tests.harness import transport  # noqa: E402, F401
