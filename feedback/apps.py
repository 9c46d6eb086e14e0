from __future__ import annotations

from django.apps import AppConfig


class FeedbackConfig(AppConfig):
    name = "feedback"
    verbose_name = "Turns, feedback and experiences"
