"""The delivery log's end: delivered and failed rows go once they are older than the
retention (LEARNPORTAL_WEBHOOK_RETENTION_DAYS after their last attempt); a pending row, which
is still owed to its endpoint, never does. Run by the worker now and then."""

from __future__ import annotations

from django.conf import settings

from webhooks.models import Delivery, DeliveryState

PRUNE_BATCH = 1000
DAY_SECONDS = 86400.0


def prune_finished(now: float) -> int:
    """Remove the finished rows past the retention: how many, in short transactions."""
    cutoff = now - settings.LEARNPORTAL_WEBHOOK_RETENTION_DAYS * DAY_SECONDS
    old = Delivery.objects.filter(
        state__in=[DeliveryState.DELIVERED, DeliveryState.FAILED], last_attempt_at__lt=cutoff
    ).order_by()
    removed = 0
    while ids := list(old.values_list("pk", flat=True)[:PRUNE_BATCH]):
        # The same filter again: a row redelivered since it was read is pending, and stays.
        removed += old.filter(pk__in=ids).delete()[0]
    return removed
