"""Two appliers of one proposal at once: exactly one wins (PostgreSQL row locks)."""

from __future__ import annotations

import threading

import orjson
import pytest
from django.db import connection
from rest_framework.test import APIClient

from refinement.models import Refinement, Revision, StoreValue
from refinement.paths import weight_path
from tests.conftest import Actor
from tests.refinement.conftest import apply_req, weight, weight_proposal

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("existing", [False, True], ids=["first-write", "existing-row"])
@pytest.mark.parametrize("round_", range(3))
def test_one_of_two_concurrent_applies_wins(agent: Actor, existing: bool, round_: int) -> None:
    if existing:
        StoreValue.objects.create(path=weight_path("alpha"), value=0.5, version=1)
    body = orjson.dumps(apply_req(weight_proposal("alpha", 0.5, 0.55)))
    barrier = threading.Barrier(2)
    results: list[tuple[int, dict]] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {agent.raw_token}")
            barrier.wait(timeout=10)
            response = client.post("/api/learn/", data=body, content_type="application/json")
            results.append((response.status_code, response.json()))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    statuses = sorted(status for status, _ in results)
    assert statuses == [200, 409], results
    winner = next(b for s, b in results if s == 200)
    loser = next(b for s, b in results if s == 409)
    assert winner["applied_edits"] == 1
    assert loser["code"] == "conflict"
    assert weight("alpha") == pytest.approx(0.55)
    assert Revision.objects.filter(path=weight_path("alpha")).count() == 1
    assert Refinement.objects.filter(status="applied").count() == 1
