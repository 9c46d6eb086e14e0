from __future__ import annotations

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "learnportal.webhooks"
    label = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"
