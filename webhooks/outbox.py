"""The outbox: one Delivery row per (event, subscribed endpoint of the event's project), in the
change's transaction.

Which endpoints of each project take which event is read once and kept in the cache (shared by the processes
when REDIS_URL is set), so that a batch of feedback with no endpoint registered costs the
database nothing; every change to an endpoint drops it. The cache is an optimisation: with it
unreachable each write reads the endpoints from the database, and a drop that could not reach
it counts within SUBSCRIPTIONS_SECONDS, the value's timeout.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from django.db import transaction

from core.best_effort_cache import cache_delete, cache_get, cache_set
from webhooks.catalogue import FROM_BROADCAST
from webhooks.models import Delivery, Endpoint

# Not the key of the shape before projects (a list per event), which a cache may still hold.
SUBSCRIPTIONS_KEY = "webhooks.subscriptions.by-project"
# Without a shared cache (no REDIS_URL, or Redis unreachable when it changed), how soon another
# process sees a changed endpoint.
SUBSCRIPTIONS_SECONDS = 30


def subscriptions() -> dict[str, dict[str, list[int]]]:
    """By project (its slug), each event's subscribed endpoints' ids."""
    found: dict[str, dict[str, list[int]]] | None = cache_get(SUBSCRIPTIONS_KEY)
    if found is None:
        found = {}
        rows = Endpoint.objects.values_list("project__slug", "pk", "events").order_by("pk")
        for project, pk, events in rows:
            for event in events:
                found.setdefault(project, {}).setdefault(event, []).append(pk)
        cache_set(SUBSCRIPTIONS_KEY, found, SUBSCRIPTIONS_SECONDS)
    return found


def subscriptions_changed() -> None:
    # Now, for this transaction's own writes, and after commit, for a read that raced it.
    cache_delete(SUBSCRIPTIONS_KEY)
    transaction.on_commit(lambda: cache_delete(SUBSCRIPTIONS_KEY))


def message_body(event: str, data: dict[str, Any], now: float) -> str:
    """The Standard Webhooks payload shape: `type`, `timestamp` and the event's `data`."""
    stamp = datetime.fromtimestamp(now, tz=UTC).isoformat().replace("+00:00", "Z")
    return json.dumps({"type": event, "timestamp": stamp, "data": data}, separators=(",", ":"))


def new_message_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


def write_on_announce(
    sender: object, *, event: str, payload: dict[str, Any], project: str, **_: object
) -> None:
    outbox_write(event, payload, project=project)


def outbox_write(broadcast: str, payload: dict[str, Any], *, project: str) -> int:
    """Queue the webhook of a dashboard broadcast in the project `project` (a slug) for that
    project's subscribers: how many rows."""
    event = FROM_BROADCAST.get(broadcast)
    if event is None:
        return 0
    endpoints = subscriptions().get(project, {}).get(event, [])
    if not endpoints:
        return 0
    now = time.time()
    body = message_body(event, payload, now)
    Delivery.objects.bulk_create(
        Delivery(
            endpoint_id=pk,
            event=event,
            message_id=new_message_id(),
            body=body,
            created_at=now,
            next_attempt_at=now,
        )
        for pk in endpoints
    )
    return len(endpoints)
