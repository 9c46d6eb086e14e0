"""The client's tests run against a live server: `asgi_server` (uvicorn in a thread of the test
process, over the test database), as an agent would reach `make run`.

`portal` is that server's URL and an agent's raw token; `client` a LearnClient on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from learnportal_client import LearnClient, Retry
from tests.factories import ApiTokenFactory, UserFactory

if TYPE_CHECKING:
    from collections.abc import Iterator

# A backoff no host's Retry-After in these tests comes near: a wait of at most 1 s is the host's.
SLOW_BACKOFF = Retry(backoff=5.0)


@dataclass(frozen=True)
class Portal:
    url: str
    token: str  # an agent's

    def token_for(self, name: str, role: str) -> str:
        return ApiTokenFactory.create(name=name, role=role).raw


def person_token(name: str, role: str, *, project: str = "default") -> str:
    """The personal token of a new person with `role` in `project`."""
    user = UserFactory.create(username=name, role=role, project=project)
    return ApiTokenFactory.create(name=f"{name}-own", user=user).raw


@pytest.fixture
def portal(asgi_server: str) -> Portal:
    return Portal(asgi_server, ApiTokenFactory.create(name="client-agent").raw)


@pytest.fixture
def client(portal: Portal) -> Iterator[LearnClient]:
    with LearnClient(portal.url, portal.token) as client:
        yield client
