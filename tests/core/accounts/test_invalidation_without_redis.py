"""A revocation or a role change told to the other processes, without Redis.

What this process publishes once the change is committed is what another process's listener
applies (`invalidation.apply`), and that drops the principal it had cached and tells its open
sockets. Redis is only the wire between the two: test_invalidation.py and
tests/learnportal/test_processes.py run it with a real one. Here an in-memory channel stands in
for it at the function boundary (`invalidation.publish`), and the other process is a principal
cache of its own, whose entries never grow old: only a message can drop them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.accounts import invalidation
from core.accounts.credentials import Credential, PrincipalCache
from core.accounts.models import ApiToken, User, hash_token
from core.accounts.services import person_set_role, token_revoke

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from tests.harness import Actor

    Committed = Callable[..., AbstractContextManager[object]]


class Channel:
    """A pub/sub channel in memory: each message published reaches every process subscribed."""

    def __init__(self) -> None:
        self.processes: list[PrincipalCache] = []

    def publish(self, message: str) -> None:
        for cache in self.processes:
            invalidation.apply(cache, message)


@pytest.fixture
def elsewhere(monkeypatch: pytest.MonkeyPatch) -> PrincipalCache:
    """Another process's principal cache, subscribed to what this one publishes."""
    channel = Channel()
    monkeypatch.setattr(invalidation, "publish", channel.publish)
    other = PrincipalCache(clock=lambda: 1000.0)
    channel.processes.append(other)
    return other


def socket_of(cache: PrincipalCache, credential: Credential) -> list[str]:
    """An open socket in that process: what it was told, once it was."""
    principal = cache.principal(credential)
    assert principal is not None
    told: list[str] = []
    cache.watch(credential, principal, lambda: told.append("look again"))
    return told


def test_a_token_revoked_here_stops_working_in_another_process_and_its_sockets_hear_it(
    agent: Actor, elsewhere: PrincipalCache, django_capture_on_commit_callbacks: Committed
) -> None:
    credential = Credential("token", hash_token(agent.token))
    socket = socket_of(elsewhere, credential)

    with django_capture_on_commit_callbacks(execute=True):
        token_revoke(token=ApiToken.objects.get(name="agent-1"))

    assert socket == ["look again"]
    assert not elsewhere.is_fresh(credential)
    assert elsewhere.principal(credential) is None  # asked again: the token is revoked


def test_a_role_changed_here_is_the_new_role_in_another_process(
    ann: Actor,
    boss: Actor,
    elsewhere: PrincipalCache,
    django_capture_on_commit_callbacks: Committed,
) -> None:
    credential = Credential("token", hash_token(ann.token))
    socket = socket_of(elsewhere, credential)

    with django_capture_on_commit_callbacks(execute=True):
        person_set_role(
            actor=User.objects.get(username="boss"),
            person=User.objects.get(username="ann"),
            role="reviewer",
        )

    assert socket == ["look again"]
    now = elsewhere.principal(credential)
    assert now is not None and now.role.value == "reviewer"
