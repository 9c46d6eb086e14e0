"""Broadcasts to dashboards, sent only after the transaction commits.

So that no browser ever sees state that was rolled back, services call `broadcast_on_commit`
inside their transaction and the message leaves when (and if) it commits. Each event names the
action whose REST reads show the same data (its audience): a subscriber receives it only while
its principal may do that action (ws.events).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

if TYPE_CHECKING:
    from learnportal.accounts.roles import Action

logger = logging.getLogger(__name__)

DASHBOARD_GROUP = "learn.events"


def broadcast_on_commit(event: str, payload: dict[str, Any], *, audience: Action) -> None:
    """Also the webhooks' one hook: their outbox rows are written here, inside the transaction,
    so that they commit (or roll back) with the change they announce."""
    from learnportal.webhooks.outbox import outbox_write  # models: not at import time

    outbox_write(event, payload)
    transaction.on_commit(lambda: broadcast_now(event, payload, audience=audience))


def broadcast_now(event: str, payload: dict[str, Any], *, audience: Action) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "learn.event", "event": event, "payload": payload, "audience": audience}
    try:
        async_to_sync(layer.group_send)(DASHBOARD_GROUP, message)
    except Exception:  # a dashboard push must never fail the write that already committed
        logger.exception("could not broadcast %s", event)
