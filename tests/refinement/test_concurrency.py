"""Concurrent writers of one proposal: one wins, the other gets `conflict`, never a deadlock.

PostgreSQL row locks; every writing path takes them in one order (the proposal row, then the
refinement it rolls back, then the store rows in path order), so two writers wait, never cycle.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.db import connection
from rest_framework.test import APIClient

from refinement.models import Refinement, Revision
from refinement.paths import weight_path
from tests.builders import apply_req, review_req, rollback_req, weight_proposal
from tests.factories import StoreValueFactory
from tests.refinement.helpers import weight

if TYPE_CHECKING:
    from tests.harness import Actor

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

Call = Callable[[APIClient], object]
ROUNDS = 10


def client_of(actor: Actor) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {actor.raw_token}")
    return client


def learn(actor: Actor, body: dict[str, Any]) -> Callable[[], tuple[int, dict[str, Any]]]:
    def call() -> tuple[int, dict[str, Any]]:
        response = client_of(actor).post(
            "/api/learn/", data=orjson.dumps(body), content_type="application/json"
        )
        return response.status_code, response.json()

    return call


def rest(actor: Actor, url: str) -> Callable[[], tuple[int, dict[str, Any]]]:
    def call() -> tuple[int, dict[str, Any]]:
        response = client_of(actor).post(url)
        return response.status_code, response.json()

    return call


def race(*calls: Callable[[], tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """Run the calls at once, one thread and one connection each; their answers in order."""
    barrier = threading.Barrier(len(calls))
    results: list[tuple[int, dict[str, Any]] | None] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int, call: Callable[[], tuple[int, dict[str, Any]]]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    answered = [result for result in results if result is not None]
    assert len(answered) == len(calls)
    return answered


@pytest.mark.parametrize("existing", [False, True], ids=["first-write", "existing-row"])
@pytest.mark.parametrize("round_", range(3))
def test_one_of_two_concurrent_applies_wins(agent: Actor, existing: bool, round_: int) -> None:
    if existing:
        StoreValueFactory.create(component="alpha", value=0.5)
    body = apply_req(weight_proposal("alpha", 0.5, 0.55))
    results = race(learn(agent, body), learn(agent, body))
    statuses = sorted(status for status, _ in results)
    assert statuses == [200, 409], results
    winner = next(b for s, b in results if s == 200)
    loser = next(b for s, b in results if s == 409)
    assert winner["applied_edits"] == 1
    assert loser["code"] == "conflict"
    assert weight("alpha") == pytest.approx(0.55)
    assert Revision.objects.filter(path=weight_path("alpha")).count() == 1
    assert Refinement.objects.filter(status="applied").count() == 1


def _stored(agent: Actor, component: str) -> dict[str, Any]:
    """A low-risk proposal of alpha-like `component`, filed by the agent's review."""
    StoreValueFactory.create(component=component, value=0.5)
    proposal = weight_proposal(component, 0.5, 0.55, proposal_id=f"prop-{component}")
    status, body = learn(agent, review_req(proposal))()
    assert status == 200, body
    return proposal


def _applied(agent: Actor, component: str) -> tuple[dict[str, Any], str]:
    proposal = _stored(agent, component)
    status, body = learn(agent, apply_req(proposal))()
    assert status == 200 and body["applied_edits"] == 1, body
    return proposal, body["refinement_id"]


@pytest.mark.parametrize("variant", ["learn-and-rest-apply", "rollback-and-rest-apply"])
def test_concurrent_writers_of_one_proposal_get_a_conflict_never_a_deadlock(
    agent: Actor, rev: Actor, rev2: Actor, variant: str
) -> None:
    for round_ in range(ROUNDS):
        component = f"c{round_}"
        if variant == "learn-and-rest-apply":
            proposal = _stored(agent, component)
            url = f"/api/proposals/{proposal['proposal_id']}/apply/"
            calls = [learn(rev, apply_req(proposal)), rest(rev2, url)]
        else:
            proposal, refinement_id = _applied(agent, component)
            url = f"/api/proposals/{proposal['proposal_id']}/apply/"
            calls = [learn(agent, rollback_req(refinement_id)), rest(rev2, url)]

        results = race(*calls)

        statuses = sorted(status for status, _ in results)
        assert 503 not in statuses, (round_, results)
        if variant == "learn-and-rest-apply":
            assert statuses == [200, 409], (round_, results)
            assert weight(component) == pytest.approx(0.55)
        else:
            # The rollback goes first (then the reviewer's apply meets the restored value and
            # applies again), or the apply does and meets the applied value: stale.
            assert statuses in ([200, 200], [200, 409]), (round_, results)
        conflicts = [body for status, body in results if status == 409]
        assert all(body["code"] == "conflict" for body in conflicts), results
