"""The delivery log is pruned: delivered and failed rows past the retention go, pending rows
(still owed to their endpoint) never do, however old."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.management import call_command

from tests.factories import DeliveryFactory, EndpointFactory
from webhooks.models import Delivery, DeliveryState, Endpoint
from webhooks.retention import DAY_SECONDS, prune_finished

pytestmark = pytest.mark.django_db

NOW = time.time()


@pytest.fixture
def endpoint() -> Endpoint:
    return EndpointFactory.create()


def row(endpoint: Endpoint, state: str, *, days_ago: float, attempts: int = 1) -> Delivery:
    at = NOW - days_ago * DAY_SECONDS
    return DeliveryFactory.create(
        endpoint=endpoint,
        created_at=at,
        state=state,
        attempts=attempts,
        last_attempt_at=at if attempts else None,
        delivered_at=at if state == DeliveryState.DELIVERED else None,
    )


def test_finished_rows_past_the_retention_go_and_pending_ones_stay(
    endpoint: Endpoint, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_RETENTION_DAYS = 30.0
    old_delivered = row(endpoint, DeliveryState.DELIVERED, days_ago=31)
    old_failed = row(endpoint, DeliveryState.FAILED, days_ago=31)
    kept = {
        row(endpoint, DeliveryState.DELIVERED, days_ago=29).pk,
        row(endpoint, DeliveryState.FAILED, days_ago=29).pk,
        row(endpoint, DeliveryState.PENDING, days_ago=90).pk,  # retrying for 90 days: owed
        row(endpoint, DeliveryState.PENDING, days_ago=90, attempts=0).pk,  # never attempted
    }
    assert prune_finished(NOW) == 2
    assert set(Delivery.objects.values_list("pk", flat=True)) == kept
    assert not Delivery.objects.filter(pk__in=[old_delivered.pk, old_failed.pk]).exists()
    assert prune_finished(NOW) == 0


def test_a_failed_row_redelivered_counts_from_its_new_attempt(
    endpoint: Endpoint, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_RETENTION_DAYS = 30.0
    failed = row(endpoint, DeliveryState.FAILED, days_ago=31)
    Delivery.objects.filter(pk=failed.pk).update(last_attempt_at=NOW - DAY_SECONDS)
    assert prune_finished(NOW) == 0


def test_the_retention_setting_decides_what_is_old(endpoint: Endpoint, settings: Any) -> None:
    row(endpoint, DeliveryState.DELIVERED, days_ago=3)
    settings.LEARNPORTAL_WEBHOOK_RETENTION_DAYS = 7.0
    assert prune_finished(NOW) == 0
    settings.LEARNPORTAL_WEBHOOK_RETENTION_DAYS = 2.0
    assert prune_finished(NOW) == 1


def test_more_rows_than_one_batch_are_all_pruned(endpoint: Endpoint, monkeypatch: Any) -> None:
    monkeypatch.setattr("webhooks.retention.PRUNE_BATCH", 3)
    for _ in range(7):
        row(endpoint, DeliveryState.DELIVERED, days_ago=60)
    pending = row(endpoint, DeliveryState.PENDING, days_ago=60)
    assert prune_finished(NOW) == 7
    assert list(Delivery.objects.values_list("pk", flat=True)) == [pending.pk]


def test_the_worker_prunes(endpoint: Endpoint) -> None:
    row(endpoint, DeliveryState.DELIVERED, days_ago=365)
    pending = row(endpoint, DeliveryState.PENDING, days_ago=365, attempts=3)
    Delivery.objects.filter(pk=pending.pk).update(next_attempt_at=NOW + 3600)  # not due now
    call_command("webhooks_worker", "--once")
    assert list(Delivery.objects.values_list("pk", flat=True)) == [pending.pk]
