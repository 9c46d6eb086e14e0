from __future__ import annotations

from django.apps import AppConfig


class LearnPortalConfig(AppConfig):
    """The wiring on top of both apps: its pages, its commands (seed_demo) and the HTTP API."""

    name = "learnportal"
    verbose_name = "LearnPortal"

    def ready(self) -> None:
        from learnportal.api import openapi  # noqa: F401  (registers the OpenAPI auth schemes)
