"""The worker's side: claim what is due, send it signed, and log what came back.

At least once: a row leaves `pending` only after its endpoint answered 2xx (or it ran out of
attempts). Redirects are not followed (a 3xx is a failure), the connection goes only to an address
checked as it opens (webhooks.transport) and every attempt has a timeout; this
runs only in the worker (`manage.py webhooks_worker`, webhooks.worker), never in a
request.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F

from webhooks import transport
from webhooks.addresses import Refused
from webhooks.models import Delivery, DeliveryState
from webhooks.signing import headers

if TYPE_CHECKING:
    from collections.abc import Collection

# A claimed row is due again this long after its attempt's timeout, if no worker finished it.
LEASE_MARGIN_SECONDS = 2.0


@dataclass(frozen=True)
class Outcome:
    status: int | None
    error: str

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def backoff_seconds(attempts: int) -> float:
    """After the `attempts`-th failure: base · 2^(attempts-1), at most the cap."""
    base: float = settings.LEARNPORTAL_WEBHOOK_BACKOFF_SECONDS
    cap: float = settings.LEARNPORTAL_WEBHOOK_BACKOFF_CAP_SECONDS
    return float(min(cap, base * 2 ** max(0, attempts - 1)))


def lease_seconds() -> float:
    """How long a claimed row is this worker's: longer than its one attempt can take (the
    timeout, a deadline for the whole attempt: webhooks.transport), so that no
    other worker sends it meanwhile."""
    timeout: float = settings.LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS
    return timeout + LEASE_MARGIN_SECONDS


def claim_due(
    now: float, *, skip: Collection[int] = (), busy: Collection[int] = ()
) -> Delivery | None:
    """Lease the next due row (but those in `skip`, and those to the endpoints in `busy`) to
    this worker, counting the attempt; None if none is due.

    One row at a time, claimed as its attempt begins: a lease taken for a batch would run out
    while the rows before it were sent, and another worker would send the rest again.
    """
    lease_until = now + lease_seconds()
    with transaction.atomic():
        due = (
            Delivery.objects.filter(state=DeliveryState.PENDING, next_attempt_at__lte=now)
            .exclude(pk__in=skip)
            .exclude(endpoint_id__in=busy)
        )
        ids = list(
            due.select_for_update(skip_locked=True)
            .order_by("next_attempt_at", "id")
            .values_list("pk", flat=True)[:1]
        )
        # Guarded by the same filter, so that two workers never both claim a row on SQLite.
        Delivery.objects.filter(
            pk__in=ids, state=DeliveryState.PENDING, next_attempt_at__lte=now
        ).update(next_attempt_at=lease_until, attempts=F("attempts") + 1, last_attempt_at=now)
    return (
        Delivery.objects.filter(pk__in=ids, next_attempt_at=lease_until)
        .select_related("endpoint")
        .first()
    )


def send(delivery: Delivery, client: httpx.Client) -> Outcome:
    stamp = int(time.time())
    sent = headers(delivery.endpoint.secret, delivery.message_id, stamp, delivery.body)
    try:
        with transport.deadline(settings.LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS):
            response = client.post(delivery.endpoint.url, content=delivery.body, headers=sent)
    except Refused as refusal:  # the connection's own check (transport.CheckedBackend)
        return Outcome(None, f"refused: {refusal}")
    except httpx.TimeoutException:
        return Outcome(None, "timed out")
    except httpx.HTTPError as exc:
        return Outcome(None, f"could not connect: {type(exc).__name__}")
    if 300 <= response.status_code < 400:
        return Outcome(response.status_code, "a redirect, not followed")
    return Outcome(response.status_code, "" if response.is_success else response.reason_phrase)


def record(delivery: Delivery, outcome: Outcome, now: float) -> None:
    # Only while the lease is still this worker's: a later claim's outcome is that worker's.
    rows = Delivery.objects.filter(
        pk=delivery.pk, state=DeliveryState.PENDING, next_attempt_at=delivery.next_attempt_at
    )
    common = {"last_status": outcome.status, "last_error": outcome.error[:300]}
    if outcome.ok:
        rows.update(state=DeliveryState.DELIVERED, delivered_at=now, **common)
    elif delivery.attempts >= settings.LEARNPORTAL_WEBHOOK_MAX_ATTEMPTS:
        rows.update(state=DeliveryState.FAILED, **common)
    else:
        rows.update(next_attempt_at=now + backoff_seconds(delivery.attempts), **common)


def client() -> httpx.Client:
    return transport.client(settings.LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS)
