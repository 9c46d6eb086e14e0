from __future__ import annotations

import time
from typing import ClassVar

from django.db import models


class Endpoint(models.Model):
    """An admin's receiver of one project: where to POST which of that project's events,
    signed with `secret`.

    The secret is kept (the worker signs with it) but shown only once, when it is made.
    """

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    url = models.URLField(max_length=2000)
    events = models.JSONField(default=list)
    secret = models.CharField(max_length=100)
    description = models.CharField(max_length=200, blank=True)
    created_by = models.CharField(max_length=150)
    created_at = models.FloatField(default=time.time)

    class Meta:
        ordering: ClassVar = ["id"]

    def __str__(self) -> str:
        return self.url


class DeliveryState(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


class Delivery(models.Model):
    """One event for one endpoint: the outbox row, and its log once sent.

    Written in the transaction of the change. A worker claims a pending row by moving
    `next_attempt_at` past the attempt's timeout (a lease): a worker killed mid-flight leaves
    the row pending, and it is due again once the lease runs out.
    """

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    message_id = models.CharField(max_length=40, unique=True)
    body = models.TextField()  # the exact bytes signed and sent, the same on every attempt
    created_at = models.FloatField()
    state = models.CharField(
        max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.FloatField()
    last_attempt_at = models.FloatField(null=True)
    last_status = models.PositiveIntegerField(null=True)
    last_error = models.CharField(max_length=300, blank=True)
    delivered_at = models.FloatField(null=True)

    class Meta:
        ordering: ClassVar = ["-id"]
        indexes: ClassVar = [
            models.Index(fields=["state", "next_attempt_at"], name="webhook_delivery_due"),
            # An endpoint's log, newest first, with or without a state (webhooks.log).
            models.Index(fields=["endpoint", "id"], name="webhook_delivery_log"),
            models.Index(fields=["endpoint", "state", "id"], name="webhook_delivery_log_state"),
        ]

    def __str__(self) -> str:
        return f"{self.event} {self.message_id}"
