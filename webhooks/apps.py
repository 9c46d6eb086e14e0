from __future__ import annotations

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    label = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core.events import announced
        from webhooks.outbox import write_on_announce

        announced.connect(write_on_announce, dispatch_uid="webhooks.outbox")
